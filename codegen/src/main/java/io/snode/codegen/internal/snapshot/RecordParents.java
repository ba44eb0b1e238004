package io.snode.codegen.internal.snapshot;

import io.snode.api.NodeKind;
import io.snode.api.SNode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the records of a snapshot activate, record by record in file order, so that each record's
 * parent cell can be checked to be active by an earlier one: the reader's check of every file
 * ({@link SnapshotLoader}) and the writer's of what it writes ({@link SnapshotWriter}, which thus
 * never completes a file the reader refuses for a record without its parent, whatever another
 * thread did to the structure between its walks). A bitmasked or pointer SNode with children
 * keeps each container's mask (by the container's base), a hash SNode with children its active
 * cells, a dynamic SNode the lists whose first piece came; each counts the active cells of a
 * sparse SNode. On the heap: a mask per bitmasked or pointer record with children, a key per
 * hash record with children and per list (a few dozen bytes each).
 */
final class RecordParents {
    private final NodeGeometry[] nodes;
    /** Per SNode id: what its records activate, or null for the SNodes nothing asks about. */
    private final Activity[] activity;

    /** Coordinates as a key of a hash map (also {@code SnapshotLoader}'s, for hash containers). */
    record Cell(int[] at) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Cell that && Arrays.equals(at, that.at);
        }

        /**
         * {@link Arrays#hashCode} spread over every bit (the top half of its product with a large
         * odd constant): the coordinates of containers are multiples of a power of two, so that
         * hash alone has nearly constant low bits, and a map's buckets collided (a review's probe
         * of 2^20 hash containers: the map's bins turned into trees).
         */
        @Override
        public int hashCode() {
            return (int) ((Arrays.hashCode(at) * 0x9E3779B97F4A7C15L) >>> 32);
        }
    }

    private static final class Activity {
        final Map<Cell, long[]> masks = new HashMap<>();
        final Set<Cell> cells = new HashSet<>();
        long active;
    }

    /** @param nodes per SNode id, the geometry of each SNode of the layout */
    RecordParents(NodeGeometry[] nodes) {
        this.nodes = nodes;
        this.activity = new Activity[nodes.length];
        for (NodeGeometry node : nodes) {
            SNode snode = node.snode;
            boolean tracked = switch (snode.kind()) {
                case BITMASKED, POINTER, HASH -> !snode.children().isEmpty();
                case DYNAMIC -> true;
                default -> false;
            };
            if (tracked) {
                activity[snode.id()] = new Activity();
            }
        }
    }

    /** Whether {@link #activate} keeps what {@code node}'s records activate (an SNode with children, or a dynamic one). */
    boolean tracks(NodeGeometry node) {
        return activity[node.snode.id()] != null;
    }

    /** Whether the parent cell at {@code parent} of a record of {@code node} is active after the records so far. */
    boolean parentActive(NodeGeometry node, int[] parent) {
        return active(node.snode.parent(), parent);
    }

    /** Whether the cell at {@code coordinates} of {@code snode} (one with children) is active after the records so far. */
    boolean active(SNode snode, int[] coordinates) {
        NodeGeometry node = nodes[snode.id()];
        return switch (snode.kind()) {
            case ROOT -> true;
            case DENSE -> active(snode.parent(), node.parentCoordinates(node.containerBase(coordinates), 0));
            case BITMASKED, POINTER -> {
                long[] mask = mask(snode, node.containerBase(coordinates));
                long index = node.cellIndex(coordinates);
                yield mask != null && (mask[(int) (index >>> 6)] & (1L << index)) != 0;
            }
            case HASH -> activity[snode.id()].cells.contains(new Cell(coordinates));
            default -> throw new AssertionError(snode.kind() + " has no children");
        };
    }

    /**
     * The mask of the container of bitmasked or pointer {@code snode} at {@code base}, or null:
     * the last one found is kept, as consecutive records mostly lie in one parent container (the
     * map keeps each container's first mask array and ORs later records into it, so a kept array
     * stays current).
     */
    private long[] mask(SNode snode, int[] base) {
        if (snode.id() == lastSnode && Arrays.equals(base, lastBase)) {
            return lastMask;
        }
        long[] mask = activity[snode.id()].masks.get(new Cell(base));
        if (mask != null) {
            lastSnode = snode.id();
            lastBase = base;
            lastMask = mask;
        }
        return mask;
    }

    /** The container {@link #mask} found last: its SNode's id (-1: none), base and mask. */
    private int lastSnode = -1;
    private int[] lastBase;
    private long[] lastMask;

    /** Active cells of {@code snode} (one with children) after the records so far. */
    long activeCells(SNode snode) {
        return switch (snode.kind()) {
            case ROOT -> 1;
            case DENSE -> saturatedProduct(activeCells(snode.parent()), nodes[snode.id()].cellCount);
            case BITMASKED, POINTER, HASH -> activity[snode.id()].active;
            default -> throw new AssertionError(snode.kind() + " has no children");
        };
    }

    /**
     * Notes the cells that a block record of {@code node} with {@code base} (a hash record's: its
     * cell's coordinates) and {@code mask} (kept, not copied: it must not change afterwards)
     * activates; the cells it activated that were not active before (0 for an SNode nothing asks about).
     */
    long activate(NodeGeometry node, int[] base, long[] mask) {
        Activity cells = activity[node.snode.id()];
        if (cells == null) {
            return 0;
        }
        long added = 0;
        if (node.kind == NodeKind.HASH) {
            added = cells.cells.add(new Cell(base)) ? 1 : 0;
        } else {
            // the map keeps the first record's mask array (nothing else changes it once it is applied)
            long[] before = cells.masks.putIfAbsent(new Cell(base), mask);
            for (int w = 0; w < mask.length; w++) {
                added += Long.bitCount(before == null ? mask[w] : mask[w] & ~before[w]);
                if (before != null) {
                    before[w] |= mask[w];
                }
            }
        }
        cells.active += added;
        return added;
    }

    /** Notes the first piece of the list at {@code base} of dynamic {@code node}; false when that list came before. */
    boolean listStarts(NodeGeometry node, int[] base) {
        return activity[node.snode.id()].cells.add(new Cell(base));
    }

    static long saturatedProduct(long a, long b) {
        long product = a * b;
        return Math.multiplyHigh(a, b) != 0 || product < 0 ? Long.MAX_VALUE : product;
    }
}
