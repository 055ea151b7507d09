package lake.cli;

import lake.client.model.MetasrvException;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * How values cross the command line: text (UTF-8) by default, {@code --base64} text for binary
 * values, or {@code --file PATH} ({@code -}: stdin / stdout) for exact bytes.
 */
final class Values {
    @Option(names = "--base64", description = "Values on the command line and in the output are base64.")
    boolean base64;

    @Option(names = "--file", paramLabel = "PATH",
            description = "The value as the exact bytes of file PATH, '-' for stdin; get writes the value there ('-': stdout).")
    String file;

    /** The bytes of a value given as an argument. */
    byte[] arg(String v, String name) {
        if (!base64) return v.getBytes(StandardCharsets.UTF_8);
        try {
            return Base64.getDecoder().decode(v);
        } catch (IllegalArgumentException e) {
            throw new MetasrvException.InvalidArgument(name + " is not base64: " + e.getMessage());
        }
    }

    /** The value: from {@code --file}, else the positional argument; exactly one of them. */
    byte[] value(String positional, InputStream stdin) {
        if (file != null && positional != null) {
            throw new MetasrvException.InvalidArgument("give VALUE or --file, not both");
        }
        if (file == null) {
            if (positional == null) throw new MetasrvException.InvalidArgument("missing VALUE (or --file PATH)");
            return arg(positional, "VALUE");
        }
        try {
            return file.equals("-") ? stdin.readAllBytes() : Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            throw new MetasrvException.InvalidArgument("--file: " + ExitCodes.fileProblem(Path.of(file), e));
        }
    }

    /** Prints a value read: into {@code --file}, as base64, or as text with a newline. */
    void print(byte[] value, PrintStream out) {
        try {
            if (file != null) {
                if (file.equals("-")) {
                    out.write(value);
                    out.flush();
                } else {
                    Files.write(Path.of(file), value);
                }
            } else if (base64) {
                out.println(Base64.getEncoder().encodeToString(value));
            } else {
                out.write(value);
                out.println();
            }
        } catch (java.nio.file.NoSuchFileException e) {
            throw new MetasrvException.InvalidArgument("--file: no such directory: " + Path.of(file).toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new MetasrvException.InvalidArgument("--file: cannot write: " + ExitCodes.fileProblem(Path.of(file), e));
        }
    }

    /** A value for a column of people's output: its text if it is printable UTF-8, else a placeholder (or base64). */
    String display(byte[] value) {
        if (base64) return Base64.getEncoder().encodeToString(value);
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(value)).toString();
            if (s.chars().noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) return s;
        } catch (CharacterCodingException binary) {
            // Falls through to the placeholder.
        }
        return "<" + value.length + " bytes, binary; use --base64>";
    }
}
