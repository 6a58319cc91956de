//! The reflection document of `build` (`<kernel>.json`), written field by field.
//!
//! The bytes are exactly those of `serde_json::to_writer_pretty` on the same [`Reflection`]
//! (two-space indent, `"key": value`, `[]` and `{}` when empty, the serde attributes'
//! renamings and omissions); the runtime reads the document back with serde. serde_json
//! took about 27K instructions a kernel here (a call through `io::Write` for every
//! punctuation mark and indent, and strings escaped byte by byte), 7% of a 200-kernel
//! `build`. A test compares the two on documents with every optional part present.

use cajeta_runtime::{
    Access, Binding, BoundsCheck, CheckSite, CoopMatrixShape, DescriptorArray, DescriptorType,
    Parameter, ParameterSlot, PushConstantMember, Reflection, SpecConstant,
};

/// `reflection` as pretty JSON.
pub(crate) fn reflection_json(r: &Reflection) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::with_capacity(4096),
        depth: 0,
        first: true,
    };
    w.open(b'{');
    w.str_field("entry_point", &r.entry_point);
    w.str_field("spirv_version", &r.spirv_version);
    w.str_field("target_env", &r.target_env);
    w.key("workgroup_size_spec_ids");
    w.array(&r.workgroup_size_spec_ids, |w, v| w.number(*v as u64));
    w.key("default_workgroup_size");
    w.array(&r.default_workgroup_size, |w, v| w.number(*v as u64));
    w.key("bindings");
    w.array(&r.bindings, binding);
    w.key("push_constants");
    w.open(b'{');
    w.num_field("size", r.push_constants.size as u64);
    w.key("members");
    w.array(&r.push_constants.members, push_constant_member);
    w.close(b'}');
    w.key("spec_constants");
    w.array(&r.spec_constants, spec_constant);
    for (name, list) in [
        ("capabilities", &r.capabilities),
        ("extensions", &r.extensions),
        ("vulkan_features", &r.vulkan_features),
    ] {
        w.key(name);
        w.array(list, |w, s| w.string(s));
    }
    w.str_field("precision_variant", &r.precision_variant);
    w.key("parameters");
    w.array(&r.parameters, parameter);
    if r.static_shared_bytes != 0 {
        w.num_field("static_shared_bytes", r.static_shared_bytes as u64);
    }
    if let Some(b) = &r.bounds_check {
        w.key("bounds_check");
        bounds_check(&mut w, b);
    }
    if let Some(n) = r.required_subgroup_size {
        w.num_field("required_subgroup_size", n as u64);
    }
    if !r.coop_matrix_shapes.is_empty() {
        w.key("coop_matrix_shapes");
        w.array(&r.coop_matrix_shapes, coop_shape);
    }
    w.close(b'}');
    w.out
}

fn binding(w: &mut Writer, b: &Binding) {
    w.open(b'{');
    w.str_field("name", &b.name);
    w.num_field("set", b.set as u64);
    w.num_field("binding", b.binding as u64);
    w.str_field(
        "descriptor_type",
        match b.descriptor_type {
            DescriptorType::StorageBuffer => "storage_buffer",
            DescriptorType::StorageImage => "storage_image",
            DescriptorType::SampledImage => "sampled_image",
            DescriptorType::Sampler => "sampler",
            DescriptorType::AccelerationStructure => "acceleration_structure",
        },
    );
    if let Some(t) = &b.element_type {
        w.str_field("element_type", t);
    }
    if let Some(s) = b.element_stride {
        w.num_field("element_stride", s as u64);
    }
    if let Some(f) = &b.image_format {
        w.str_field("image_format", f);
    }
    w.str_field("access", access(b.access));
    if let Some(a) = &b.array {
        w.key("array");
        descriptor_array(w, a);
    }
    w.close(b'}');
}

fn descriptor_array(w: &mut Writer, a: &DescriptorArray) {
    w.open(b'{');
    w.num_field("capacity_spec_id", a.capacity_spec_id as u64);
    w.num_field("count_member", a.count_member as u64);
    w.bool_field("non_uniform", a.non_uniform);
    w.close(b'}');
}

fn access(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::Write => "write",
        Access::ReadWrite => "read_write",
    }
}

fn push_constant_member(w: &mut Writer, m: &PushConstantMember) {
    w.open(b'{');
    w.str_field("name", &m.name);
    w.num_field("offset", m.offset as u64);
    w.num_field("size", m.size as u64);
    w.str_field("type", &m.ty);
    w.close(b'}');
}

fn spec_constant(w: &mut Writer, s: &SpecConstant) {
    w.open(b'{');
    w.num_field("id", s.id as u64);
    w.str_field("name", &s.name);
    w.str_field("type", &s.ty);
    w.num_field("default", s.default as u64);
    w.close(b'}');
}

fn parameter(w: &mut Writer, p: &Parameter) {
    w.open(b'{');
    w.str_field("name", &p.name);
    w.key("slot");
    // serde's external tagging: `{ "variant": content }`.
    w.open(b'{');
    match p.slot {
        ParameterSlot::Binding(i) => w.num_field("binding", i as u64),
        ParameterSlot::PushConstant(i) => w.num_field("push_constant", i as u64),
        ParameterSlot::Address {
            address_member,
            length_member,
            element_stride,
            access: a,
        } => {
            w.key("address");
            w.open(b'{');
            w.num_field("address_member", address_member as u64);
            w.num_field("length_member", length_member as u64);
            w.num_field("element_stride", element_stride as u64);
            w.str_field("access", access(a));
            w.close(b'}');
        }
    }
    w.close(b'}');
    if let Some(id) = p.psc_spec_id {
        w.num_field("psc_spec_id", id as u64);
    }
    w.close(b'}');
}

fn bounds_check(w: &mut Writer, b: &BoundsCheck) {
    w.open(b'{');
    w.num_field("binding", b.binding as u64);
    w.key("sites");
    w.array(&b.sites, check_site);
    w.close(b'}');
}

fn check_site(w: &mut Writer, s: &CheckSite) {
    w.open(b'{');
    w.str_field("resource", &s.resource);
    w.str_field("kind", &s.kind);
    w.bool_field("signed", s.signed);
    if !s.shape.is_empty() {
        w.key("shape");
        w.array(&s.shape, |w, v| w.number(*v as u64));
    }
    if !s.position.is_empty() {
        w.str_field("position", &s.position);
    }
    w.num_field("file", s.file as u64);
    w.num_field("offset", s.offset as u64);
    w.close(b'}');
}

fn coop_shape(w: &mut Writer, s: &CoopMatrixShape) {
    w.open(b'{');
    w.num_field("m", s.m as u64);
    w.num_field("n", s.n as u64);
    w.num_field("k", s.k as u64);
    w.str_field("a", &s.a);
    w.str_field("b", &s.b);
    w.str_field("c", &s.c);
    w.str_field("result", &s.result);
    w.str_field("scope", &s.scope);
    w.close(b'}');
}

/// serde_json's pretty layout: every element and member on its own line, indented two
/// spaces a level; an empty array or object stays `[]` / `{}`.
struct Writer {
    out: Vec<u8>,
    depth: usize,
    /// Whether the innermost open array or object has no element yet.
    first: bool,
}

/// A comma, a line break and 64 levels of indentation: a slice of it is what comes before
/// an element or a closing bracket (see [`Writer::put_break`]).
const BREAK: &[u8; 2 + 128] = &{
    let mut b = [b' '; 2 + 128];
    b[0] = b',';
    b[1] = b'\n';
    b
};

/// The bytes a JSON string escapes: control characters, `"` and `\\`.
static ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b < 0x20 || b == b'"' as usize || b == b'\\' as usize;
        b += 1;
    }
    table
};

impl Writer {
    /// Appends the first `len` bytes of `src` (`len <= N`) by copying all `N` of them into
    /// room reserved first: a copy of a size known when compiling is a few moves, where one
    /// of the exact length was a call of `memcpy`.
    #[inline]
    fn put_prefix<const N: usize>(&mut self, src: &[u8; N], len: usize) {
        assert!(len <= N);
        self.out.reserve(N);
        let at = self.out.len();
        // SAFETY: `reserve` made room for `N` bytes past `at`; the first `len` of them are
        // written, so they may be counted in; the rest is spare capacity, which may hold
        // anything.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), self.out.as_mut_ptr().add(at), N);
            self.out.set_len(at + len);
        }
    }

    /// The line break and indentation at the current depth, after a comma when `comma`:
    /// one copy (a push for the break and one for each level cost about twice as much, and
    /// a 200-kernel `build` writes 24,000 of them).
    fn put_break(&mut self, comma: bool) {
        let levels = 2 * self.depth;
        let start = usize::from(!comma);
        if levels <= 30 {
            let src: &[u8; 32] = BREAK[start..start + 32].try_into().expect("32 bytes");
            self.put_prefix(src, 2 - start + levels);
            return;
        }
        // Deeper than the documents nest: indentation in pieces.
        self.out.extend_from_slice(&BREAK[start..2]);
        let mut n = levels;
        while n > 0 {
            let k = n.min(BREAK.len() - 2);
            self.out.extend_from_slice(&BREAK[2..2 + k]);
            n -= k;
        }
    }

    fn newline(&mut self) {
        self.put_break(false);
    }

    /// Before an element or a member: the comma after the previous one, a new line.
    fn element(&mut self) {
        self.put_break(!self.first);
        self.first = false;
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.first = true;
    }

    fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if !self.first {
            self.newline();
        }
        self.out.push(bracket);
        self.first = false;
    }

    /// A member's name: one of the field names above, which need no escaping.
    fn key(&mut self, name: &str) {
        self.element();
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    fn array<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.open(b'[');
        for item in items {
            self.element();
            each(self, item);
        }
        self.close(b']');
    }

    fn str_field(&mut self, name: &str, value: &str) {
        self.key(name);
        self.string(value);
    }

    fn num_field(&mut self, name: &str, value: u64) {
        self.key(name);
        self.number(value);
    }

    fn bool_field(&mut self, name: &str, value: bool) {
        self.key(name);
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn number(&mut self, value: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut v = value;
        loop {
            at -= 1;
            digits[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.out.extend_from_slice(&digits[at..]);
    }

    /// A JSON string, escaped as serde_json does: `\"`, `\\`, the short escapes of
    /// `\b \f \n \r \t`, `\u00XX` for the other control characters; the rest as is.
    fn string(&mut self, s: &str) {
        self.out.push(b'"');
        let bytes = s.as_bytes();
        // Names, types and versions almost never need escaping: one pass with a table (they
        // are a few bytes long, too short for a vectorized pass to pay) tells, and such a
        // string is copied whole.
        let needs_escape = bytes.iter().any(|&b| ESCAPED[usize::from(b)]);
        if !needs_escape {
            self.out.extend_from_slice(bytes);
            self.out.push(b'"');
            return;
        }
        let mut plain = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..=0x1f => b"",
                _ => continue,
            };
            self.out.extend_from_slice(&bytes[plain..i]);
            plain = i + 1;
            if escape.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.extend_from_slice(b"\\u00");
                self.out.push(HEX[(b >> 4) as usize]);
                self.out.push(HEX[(b & 15) as usize]);
            } else {
                self.out.extend_from_slice(escape);
            }
        }
        self.out.extend_from_slice(&bytes[plain..]);
        self.out.push(b'"');
    }
}

#[cfg(test)]
#[path = "reflection_json_tests.rs"]
mod tests;
