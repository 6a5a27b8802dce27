package io.fedbridge.samples;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of the {@code fedbridge} command line, configured as {@code main} runs it. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = FedbridgeCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    public List<String> outLines() {
        return out.lines().toList();
    }

    public List<String> errLines() {
        return err.lines().toList();
    }

    @Override
    public String toString() {
        return "exit code " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
