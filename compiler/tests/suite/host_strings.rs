//! Strings in host code, on both host executors. String literals take Java's escapes:
//! `\b \t \n \f \r \s \" \' \\`, octal `\0`..`\377` (three digits only when the first is 0
//! to 3) and `\uXXXX`, a surrogate pair of them one character. Any other escape is E0001; it
//! once dropped the backslash and kept the letter (`"\u0042"` was the text `u0042`, `"\101"`
//! was `101`). Arrays of `String` (`heap String[n]`, starting null, and literals) are host
//! arrays like the others; they were refused though documented. Both found by
//! documentation-driven tests.

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

#[test]
fn string_arrays_are_host_arrays() {
    let src = r#"
public final class S {
    static String join(String[] parts) {
        String out = "";
        for (int32 i = 0; i < parts.length; i++) {
            out += (i > 0 ? "," : "") + parts[i];
        }
        return out;
    }

    public static int32 run() {
        String[] a = heap String[3];
        System.out.println(a[1]);
        a[0] = "x";
        a[2] = "z" + 1;
        String[] b = ["p", "q" + 2, a[2]];
        String[] c = b;
        c[0] = "P";
        System.out.println(join(b) + " " + b.length + " " + a[0] + " " + a[2]);
        System.out.println(b[0].length() + b[1].length());
        System.out.println(a[1].length());
        return 0;
    }
}
"#;
    let r = differential("string_arrays.cajeta", src);
    assert_eq!(r.out, "null\nP,q2,z1 3 x z1\n3\n");
    assert!(r.end.contains("`length` of a null String"), "{}", r.end);
}
