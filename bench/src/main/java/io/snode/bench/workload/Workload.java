package io.snode.bench.workload;

import java.util.Arrays;

/**
 * The reference workloads of {@code WORKLOADS.md}, by the ids the table, the JSON and the OpenVDB
 * harness use. W6 is timed in two parts, the appends ({@link #W6}) and the visit of every list
 * ({@link #W6V}).
 */
public enum Workload {
    W1S("W1s", "build sorted"),
    W1R("W1r", "build shuffled"),
    W2("W2", "10 M random reads"),
    W3("W3", "iterate active"),
    W4("W4", "delete half + rewrite"),
    W5("W5", "parallel build"),
    W6("W6", "append 4 M particles"),
    W6V("W6v", "visit every list");

    private final String id;
    private final String title;

    Workload(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /** The id in WORKLOADS.md (W1s, W1r, W2, ...; W6v for W6's visit). */
    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    /** The workload of an id, case-insensitive; an unknown id names the known ones. */
    public static Workload of(String id) {
        for (Workload workload : values()) {
            if (workload.id.equalsIgnoreCase(id.strip())) {
                return workload;
            }
        }
        throw new IllegalArgumentException("workload=" + id + " (known: "
                + String.join(", ", Arrays.stream(values()).map(Workload::id).toList()) + ")");
    }

    @Override
    public String toString() {
        return id;
    }
}
