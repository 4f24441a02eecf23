// A JVM for system tests that need a live one: prints "ready" once main runs, then idles
// until its standard input reaches end of file (the test closed it or died), and exits
// normally so that the JVM removes its own backing file.
public final class IdleJvm {
  private IdleJvm() {}

  public static void main(String[] args) throws java.io.IOException {
    System.out.println("ready");
    System.out.flush();
    byte[] buffer = new byte[256];
    while (System.in.read(buffer) >= 0) {
      // Input is ignored: only its end matters.
    }
  }
}
