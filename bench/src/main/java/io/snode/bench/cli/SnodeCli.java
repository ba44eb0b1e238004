package io.snode.bench.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./snode} command line. Exit codes: 0 success, 2 bad arguments or input, 1 failure;
 * errors go to stderr as one line that says what to do. A subcommand is one class annotated
 * with {@code @Command}, listed in {@code subcommands} below.
 */
@Command(name = "snode", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
        description = "SNode for Java: sparse data layouts compiled to hidden classes over off-heap memory.",
        subcommands = {InspectCommand.class, DemoCommand.class, BenchCommand.class, SoakCommand.class,
                VdbCommands.Export.class, VdbCommands.Import.class,
                CommandLine.HelpCommand.class})
public final class SnodeCli implements Runnable {
    /** Success. */
    public static final int OK = 0;
    /** A failure of the program or of the machine. */
    public static final int FAILURE = 1;
    /** Bad arguments or input. */
    public static final int BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine commandLine = new CommandLine(new SnodeCli());
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler((exception, arguments) -> {
            CommandLine.Model.CommandSpec where = exception.getCommandLine().getCommandSpec();
            if (exception instanceof CommandLine.UnmatchedArgumentException unmatched && where.parent() == null
                    && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().getFirst().startsWith("-")) {
                err.println("snode: unknown command '" + unmatched.getUnmatched().getFirst() + "'; the commands are "
                        + String.join(", ", where.subcommands().keySet()) + " (see: ./snode --help)");
                return BAD_INPUT;
            }
            String hint = exception instanceof CommandLine.MissingParameterException
                    && exception.getCommandLine().getCommand() instanceof InspectCommand inspect
                    ? inspect.missingLayoutHint() : "";
            err.println("snode: " + exception.getMessage() + hint + " (see: ./" + where.qualifiedName() + " --help)");
            return BAD_INPUT;
        });
        commandLine.setExecutionExceptionHandler((exception, parsed, result) -> {
            if (exception instanceof BadInputException bad) {
                err.println("snode " + parsed.getCommandName() + ": " + bad.getMessage());
                return BAD_INPUT;
            }
            err.println("snode " + parsed.getCommandName() + ": failed: " + exception + (heapExhausted(exception)
                    ? " (the Java heap is too small for this run: give it more with SNODE_JAVA_OPTS=-Xmx4g before"
                    + " ./snode, or ask for less work)"
                    : " (a bug or a machine limit; run again with SNODE_JAVA_OPTS=-Dsnode.trace=true before ./snode"
                    + " for the stack trace)"));
            if (Boolean.getBoolean("snode.trace")) {
                exception.printStackTrace(err);
            }
            return FAILURE;
        });
        int code = commandLine.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Whether {@code failure} or one of its causes is the Java heap running out. */
    static boolean heapExhausted(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryError error && String.valueOf(error.getMessage()).contains("Java heap")) {
                return true;
            }
        }
        return false;
    }

    /**
     * What was typed for {@code option} in the command of {@code spec} (its last occurrence), else
     * {@code value} as text: a message echoes what the user wrote, not Java's rendering of the
     * parsed number ({@code 99999999999999}, not {@code 9.9999999999999E13}).
     */
    static String typed(CommandLine.Model.CommandSpec spec, String option, Object value) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        CommandLine.Model.OptionSpec matched = parsed == null ? null : parsed.matchedOption(option);
        return matched == null || matched.originalStringValues().isEmpty() ? String.valueOf(value)
                : matched.originalStringValues().getLast();
    }

    /** Input that cannot be used: the message says what was wrong and what to do. */
    static final class BadInputException extends RuntimeException {
        BadInputException(String message) {
            super(message);
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SnodeCli.class.getPackage().getImplementationVersion();
            return new String[] {"snode " + (version == null ? "(development build)" : version)
                    + " on Java " + Runtime.version()};
        }
    }
}
