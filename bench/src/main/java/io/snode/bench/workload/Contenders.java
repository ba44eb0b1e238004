package io.snode.bench.workload;

import java.util.List;
import java.util.Optional;

/**
 * The structures the runner knows, by the names of its {@code --structure} option, and layouts
 * given as text: anything that is not one of the names is read as a layout text
 * ({@link WorkloadLayout}), and the structure is named by the layout's canonical text.
 */
public final class Contenders {
    /** Every structure, in the table's order. */
    public static final List<String> NAMES = List.of("L1", "L2", "hashmap", "fastutil", "dense", "floors");

    private Contenders() {
    }

    /** A fresh contender of {@code name} (case-insensitive) or of a layout text; see {@link #canonical}. */
    public static Contender create(String name) {
        String structure = canonical(name);
        return switch (structure) {
            case "L1" -> SNodeContender.l1();
            case "L2" -> SNodeContender.l2();
            case "hashmap" -> new BaselineHashMap();
            case "fastutil" -> new BaselineFastutil();
            case "dense" -> new BaselineDense();
            case "floors" -> new BaselineFloors();
            default -> SNodeContender.of(structure);
        };
    }

    /**
     * The structure's name: one of {@link #NAMES} as spelled there (given in any case), or the
     * canonical text of a layout that {@link WorkloadLayout#parse} accepts.
     *
     * @throws IllegalArgumentException for a word that is not a name (it lists the names), or a
     *     layout text that does not parse or cannot run the workloads (it says why)
     */
    public static String canonical(String name) {
        Optional<String> known = known(name);
        if (known.isPresent()) {
            return known.get();
        }
        if (!looksLikeLayout(name)) {
            throw new IllegalArgumentException("structure=" + name.strip() + " (known: " + String.join(", ", NAMES)
                    + ", or a layout text such as " + Layouts.L1 + "; openvdb runs through --peers)");
        }
        return WorkloadLayout.parse(name).text();
    }

    /** Whether {@code structure} (a canonical name) is a layout text rather than one of {@link #NAMES}. */
    public static boolean isLayout(String structure) {
        return known(structure).isEmpty();
    }

    private static Optional<String> known(String name) {
        String stripped = name.strip();
        return NAMES.stream().filter(known -> known.equalsIgnoreCase(stripped)).findFirst();
    }

    /** A layout text has parentheses, dots or braces; a bare word is a (mistyped) name. */
    private static boolean looksLikeLayout(String text) {
        return text.indexOf('(') >= 0 || text.indexOf('.') >= 0 || text.indexOf('{') >= 0;
    }
}
