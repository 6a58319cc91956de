//! String literals take Java's escapes, on both host executors: `\b \t \n \f \r \s \" \' \\`,
//! octal `\0`..`\377` (three digits only when the first is 0 to 3) and `\uXXXX`, a surrogate
//! pair of them one character. Any other escape is E0001; it once dropped the backslash and
//! kept the letter (`"\u0042"` was the text `u0042`, `"\101"` was `101`). Found by a
//! documentation-driven test.

use super::native_host::differential;

#[test]
fn string_literals_take_javas_escapes() {
    let src = r#"
public final class E {
    public static int32 run() {
        System.out.println("A\u0042C".length() + " " + "A\u0042C");
        System.out.println((int32) "\101".charAt(0));
        System.out.println((int32) "\b".charAt(0) + " " + (int32) "\f".charAt(0) + " [" + "\s" + "]");
        System.out.println("\uD83D\uDE00".length());
        System.out.println("tab\there \"q\" \\ \'s\' \0end".length());
        System.out.println((int32) "\377".charAt(0) + " " + "\1234".length() + " " + "\uuu0041");
        return 0;
    }
}
"#;
    let r = differential("escapes.cajeta", src);
    assert_eq!(r.out, "3 ABC\n65\n8 12 [ ]\n2\n23\n255 2 A\n");
    assert_eq!(r.end, "returned 0");
}
