package topicgate;

/** The two JSON pieces the program writes by hand (no library on the class path but the driver). */
final class Json {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Json() {}

  /** A JSON string: quotes, backslashes and control characters escaped; other characters as they are (UTF-8 out). */
  static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || Character.isSurrogate(c) && !validSurrogate(s, i)) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /** A surrogate that is half of a valid pair (a lone one would not encode as UTF-8). */
  private static boolean validSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  static String hex(byte[] b) {
    char[] out = new char[b.length * 2];
    for (int i = 0; i < b.length; i++) {
      out[2 * i] = HEX[(b[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[b[i] & 0xf];
    }
    return new String(out);
  }
}
