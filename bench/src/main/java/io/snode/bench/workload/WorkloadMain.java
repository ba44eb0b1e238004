package io.snode.bench.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One structure's part of a {@code ./snode bench} round, in a JVM of its own that the command
 * starts (so that every structure gets a fresh JIT profile and the heap it needs): runs the
 * workloads named on the command line and writes one JSON line per {@link Result} to stdout,
 * progress lines (prefixed {@value #PROGRESS}) to stderr. Exit code 0, or 1 after a line
 * prefixed {@value #ERROR} on stderr.
 *
 * <p>Arguments: {@code --structure NAME --workloads W1s,W2,... [--quick] --warmups W
 * [--warmup-seconds S] --runs R --threads 1,T} (warm-ups: at least W, and S seconds of them; see
 * {@link Trials}), where NAME is one of {@link Contenders#NAMES} or a layout text, one argument
 * whatever its commas, parentheses and spaces (see {@link Contenders#create}).
 */
public final class WorkloadMain {
    public static final String PROGRESS = "progress: ";
    public static final String ERROR = "error: ";

    private WorkloadMain() {
    }

    /** The JSON form of results: snake_case names, one object per line. */
    public static ObjectMapper json() {
        return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
    }

    public static void main(String[] args) {
        PrintStream out = System.out;
        try {
            String structure = null;
            List<Workload> workloads = new ArrayList<>();
            boolean quick = false;
            int warmups = 2;
            double warmupSeconds = 0;
            int runs = 5;
            List<Integer> threads = List.of(1);
            for (int a = 0; a < args.length; a++) {
                switch (args[a]) {
                    case "--structure" -> structure = args[++a];
                    case "--workloads" -> Arrays.stream(args[++a].split(",")).map(Workload::of).forEach(workloads::add);
                    case "--quick" -> quick = true;
                    case "--warmups" -> warmups = Integer.parseInt(args[++a]);
                    case "--warmup-seconds" -> warmupSeconds = Double.parseDouble(args[++a]);
                    case "--runs" -> runs = Integer.parseInt(args[++a]);
                    case "--threads" -> threads = Arrays.stream(args[++a].split(",")).map(Integer::valueOf).toList();
                    default -> throw new IllegalArgumentException("unknown argument " + args[a]);
                }
            }
            if (structure == null || workloads.isEmpty()) {
                throw new IllegalArgumentException("--structure and --workloads are required");
            }
            Contender contender = Contenders.create(structure);
            DataSet data = quick ? DataSet.quick() : DataSet.reference();
            Trials trials = new Trials(warmups, runs, Math.round(warmupSeconds * 1e9),
                    line -> System.err.println(PROGRESS + line));
            Contender.Context context = new Contender.Context(data, trials, threads);
            ObjectMapper json = json();
            for (Workload workload : workloads) {
                for (Result result : contender.run(workload, context)) {
                    out.println(json.writeValueAsString(result));
                    out.flush();
                }
            }
            if (contender instanceof AutoCloseable closeable) {
                closeable.close();
            }
        } catch (Throwable e) {
            System.err.println(ERROR + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }
}
