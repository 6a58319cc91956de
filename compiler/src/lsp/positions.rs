//! Byte offsets (what spans hold) to LSP positions and back.
//!
//! LSP positions count lines from 0 and columns in UTF-16 code units (the protocol's default
//! encoding, the only one every client supports), so a column is not a byte nor a `char`
//! count as soon as a line has non-ASCII text before it.

use lsp_types::{Position, Range};

/// The line starts of one text, for converting offsets in it.
pub struct LineIndex {
    /// Byte offset of every line's first byte; `starts[0] == 0`.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text` (lines end at `\n`; a `\r` before it stays part of its line, where
    /// it counts no column the editor can reach).
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of byte `offset` (cut to the text, and moved back to a character
    /// boundary if it is inside one).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }

    /// The byte offset of a position; a line past the end gives the text's end, a column past
    /// its line's end gives the line's end (what editors expect of positions they clamp).
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let mut units = 0u32;
        for (i, c) in text[start..end].char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns count UTF-16 units: `é` is one, `𝄞` (outside the BMP) two, and offsets come
    /// back from positions exactly.
    #[test]
    fn utf16_columns_round_trip() {
        let text = "ab\n\u{e9}x \u{1d11e}y\nlast";
        let idx = LineIndex::new(text);
        let y = text.find('y').unwrap();
        assert_eq!(idx.position(text, y), Position::new(1, 5));
        assert_eq!(idx.offset(text, Position::new(1, 5)), y);
        let x = text.find('x').unwrap();
        assert_eq!(idx.position(text, x), Position::new(1, 1));
        assert_eq!(idx.offset(text, Position::new(1, 1)), x);
        assert_eq!(idx.position(text, text.len()), Position::new(2, 4));
        // Past the end of a line, past the last line, inside a character.
        assert_eq!(idx.offset(text, Position::new(0, 99)), 2);
        assert_eq!(idx.offset(text, Position::new(9, 0)), text.len());
        assert_eq!(idx.position(text, x - 1), Position::new(1, 0));
    }
}
