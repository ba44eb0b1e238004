package io.snode.bench.workload;

import java.util.List;
import java.util.Locale;

/** The structures the runner knows, by the names of its {@code --structure} option. */
public final class Contenders {
    /** Every structure, in the table's order. */
    public static final List<String> NAMES = List.of("L1", "L2", "hashmap", "fastutil", "dense");

    private Contenders() {
    }

    /** A fresh contender of {@code name} (case-insensitive); an unknown name lists the known ones. */
    public static Contender create(String name) {
        return switch (name.strip().toUpperCase(Locale.ROOT)) {
            case "L1" -> SNodeContender.l1();
            case "L2" -> SNodeContender.l2();
            case "HASHMAP" -> new BaselineHashMap();
            case "FASTUTIL" -> new BaselineFastutil();
            case "DENSE" -> new BaselineDense();
            default -> throw new IllegalArgumentException("structure=" + name + " (known: " + String.join(", ", NAMES)
                    + ", and openvdb through --peers)");
        };
    }
}
