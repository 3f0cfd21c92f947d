package topicgate;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Drives topicgate's Flight SQL entrance through the Arrow Flight SQL JDBC driver, as DBeaver and JDBC BI tools do,
 * and prints each command's result as one JSON line for the integration test to compare with the REST output.
 *
 * <p>Usage: {@code java -jar topicgate-jdbc.jar <jdbc url> [--user U --password P] <command>...} where a command is
 * {@code --tables <schema pattern>} (DatabaseMetaData.getTables), {@code --columns <table pattern>} (getColumns),
 * {@code --query <sql>} (Statement.executeQuery) or {@code --prepared <sql>} (a PreparedStatement, executed twice to
 * show it is reusable). Each line is {@code {"command", "columns": [{"name", "type"}], "rows": [...]}} or, when the
 * driver throws, {@code {"command", "error": {"sqlState", "message"}}}; later commands still run.
 *
 * <p>Values as test/pyarrow/read_arrow.py prints them, so both readers compare directly: 64-bit integers and
 * decimals as their digits (strings), bytes as lowercase hex, timestamps as "epoch-millis ms" (run the JVM with
 * -Duser.timezone=UTC: the driver renders timestamps in the JVM's zone), lists as arrays, structs as objects.
 */
public final class FlightJdbc {
  private FlightJdbc() {}

  public static void main(String[] args) throws SQLException {
    if (args.length < 1) {
      System.err.println("usage: FlightJdbc <jdbc url> [--user U --password P] <command>...");
      System.exit(2);
    }
    Properties props = new Properties();
    int i = 1;
    while (i + 1 < args.length && (args[i].equals("--user") || args[i].equals("--password"))) {
      props.setProperty(args[i].substring(2), args[i + 1]);
      i += 2;
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Connection conn;
    try {
      conn = DriverManager.getConnection(args[0], props);
    } catch (SQLException | RuntimeException e) {
      StringBuilder sb = new StringBuilder("{\"command\":\"connect\",\"error\":{\"status\":");
      Json.string(sb, flightStatus(e));
      sb.append(",\"message\":");
      Json.string(sb, messages(e));
      out.println(sb.append("}}"));
      System.exit(3);
      return;
    }
    try (conn) {
      for (; i + 1 < args.length; i += 2) {
        out.println(run(conn, args[i].substring(2), args[i + 1]));
      }
    }
  }

  private static String run(Connection conn, String command, String arg) {
    StringBuilder sb = new StringBuilder("{\"command\":");
    Json.string(sb, command);
    try {
      switch (command) {
        case "tables" -> {
          DatabaseMetaData md = conn.getMetaData();
          try (ResultSet rs = md.getTables(null, arg, "%", null)) {
            table(sb, rs);
          }
        }
        case "columns" -> {
          DatabaseMetaData md = conn.getMetaData();
          try (ResultSet rs = md.getColumns(null, null, arg, "%")) {
            table(sb, rs);
          }
        }
        case "query" -> {
          try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(arg)) {
            table(sb, rs);
          }
        }
        case "prepared" -> {
          try (PreparedStatement ps = conn.prepareStatement(arg)) {
            try (ResultSet first = ps.executeQuery()) {
              drain(first);
            }
            try (ResultSet rs = ps.executeQuery()) {
              table(sb, rs);
            }
          }
        }
        default -> throw new IllegalArgumentException("unknown command " + command);
      }
    } catch (SQLException | RuntimeException e) {
      sb.setLength(0);
      sb.append("{\"command\":");
      Json.string(sb, command);
      sb.append(",\"error\":{\"sqlState\":");
      String state = e instanceof SQLException q ? q.getSQLState() : null;
      Json.string(sb, state == null ? "" : state);
      sb.append(",\"status\":");
      Json.string(sb, flightStatus(e));
      sb.append(",\"message\":");
      Json.string(sb, messages(e));
      sb.append('}');
    }
    return sb.append('}').toString();
  }

  /** The message of the exception and of each cause: the driver wraps the server's gRPC status. */
  private static String messages(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (sb.length() > 0) sb.append(" | ");
      sb.append(t.getMessage());
      if (t.getCause() == t) break;
    }
    return sb.toString();
  }

  /**
   * The Flight status code (the gRPC status: INVALID_ARGUMENT, UNAUTHENTICATED, ...) of the first cause that carries
   * one, read by reflection: the driver shades Flight's classes under its own package and says the code nowhere else.
   */
  static String flightStatus(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      try {
        Object status = t.getClass().getMethod("status").invoke(t);
        return String.valueOf(status.getClass().getMethod("code").invoke(status));
      } catch (ReflectiveOperationException notFlight) {
        // not a FlightRuntimeException: its cause may be
      }
      if (t.getCause() == t) break;
    }
    return "";
  }

  private static void drain(ResultSet rs) throws SQLException {
    while (rs.next()) {
      // read to the end: the first execution must complete before the second
    }
  }

  private static void table(StringBuilder sb, ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int n = md.getColumnCount();
    sb.append(",\"columns\":[");
    for (int c = 1; c <= n; c++) {
      if (c > 1) sb.append(',');
      sb.append("{\"name\":");
      Json.string(sb, md.getColumnLabel(c));
      sb.append(",\"type\":");
      Json.string(sb, md.getColumnTypeName(c));
      sb.append('}');
    }
    sb.append("],\"rows\":[");
    boolean firstRow = true;
    while (rs.next()) {
      if (!firstRow) sb.append(',');
      firstRow = false;
      sb.append('{');
      for (int c = 1; c <= n; c++) {
        if (c > 1) sb.append(',');
        Json.string(sb, md.getColumnLabel(c));
        sb.append(':');
        value(sb, cell(rs, md.getColumnType(c), c));
      }
      sb.append('}');
    }
    sb.append(']');
  }

  /**
   * A cell as the driver gives it: timestamps through getTimestamp (the driver's getObject does not implement a
   * timestamp with a time zone), arrays as their elements, anything else through getObject.
   */
  private static Object cell(ResultSet rs, int type, int c) throws SQLException {
    if (type == Types.TIMESTAMP || type == Types.TIMESTAMP_WITH_TIMEZONE) return rs.getTimestamp(c);
    if (type == Types.ARRAY) {
      Array a = rs.getArray(c);
      return a == null ? null : a.getArray();
    }
    return rs.getObject(c);
  }

  private static void value(StringBuilder sb, Object v) throws SQLException {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Long || v instanceof BigInteger) {
      Json.string(sb, v.toString());
    } else if (v instanceof BigDecimal d) {
      Json.string(sb, d.toPlainString());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d)) Json.string(sb, "NaN");
      else if (Double.isInfinite(d)) Json.string(sb, d > 0 ? "Infinity" : "-Infinity");
      else sb.append(v);
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof byte[] b) {
      Json.string(sb, Json.hex(b));
    } else if (v instanceof Timestamp t) {
      Json.string(sb, t.getTime() + " ms");
    } else if (v instanceof LocalDateTime t) {
      Json.string(sb, t.toInstant(ZoneOffset.UTC).toEpochMilli() + " ms");
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) sb.append(',');
        first = false;
        Json.string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        value(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Array a) {
      value(sb, a.getArray());
    } else if (v instanceof Object[] l) {
      value(sb, Arrays.asList(l));
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int k = 0; k < l.size(); k++) {
        if (k > 0) sb.append(',');
        value(sb, l.get(k));
      }
      sb.append(']');
    } else {
      Json.string(sb, v.toString());
    }
  }
}
