package io.snode.runtime;

import io.snode.api.Axis;
import io.snode.api.FieldType;
import io.snode.api.Layout;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.runtime.internal.CheckedCells;
import io.snode.runtime.internal.Foreign;
import io.snode.runtime.internal.GeneratedCalls;
import io.snode.runtime.internal.ListAppend;
import io.snode.runtime.internal.Location;
import io.snode.runtime.internal.NodeTree;
import io.snode.runtime.internal.UnclosedRuntimes;
import io.snode.runtime.internal.memory.HashTables;
import io.snode.runtime.internal.memory.MemoryPool;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A layout's data in off-heap memory, reached through the <em>generic path</em>: every
 * operation walks the {@link Plan} at run time. Generated code is tested against this path,
 * and it stays usable for any layout.
 *
 * <p>Writes activate the cells on their path; reads of inactive cells return zero. All memory
 * is owned by this object: {@link #close()} returns it, and any later use of its cells or memory
 * throws {@link IllegalStateException}; {@link #layout()}, {@link #plan()} and
 * {@link #isClosed()} still answer. A runtime that becomes unreachable unclosed keeps its memory
 * until the JVM exits; it is reported once (a record on the {@code System.Logger}
 * {@code io.snode.runtime.unclosed} naming its {@link #label()} and where it was created) when
 * this library next creates, closes or collects a runtime after the garbage collector found it
 * unreachable. Coordinates are given in the index space of the field or
 * SNode named (Taichi's convention), except that a dynamic node's list operations
 * ({@link #append}, {@link #length}, {@link #deactivate}) take the list's coordinates, those of
 * the node's parent; a coordinate outside it throws
 * {@link IndexOutOfBoundsException}. A field name that is not in the layout, or a field or SNode
 * of another layout, throws {@link IllegalArgumentException}; a null argument throws
 * {@link NullPointerException} whose message is the parameter's name ({@code field} for a field
 * name). A failed operation leaves the structure as it was.
 *
 * <p>Thread safety: every method may be called from many threads at once, except that
 * {@link #collect()} and {@link #close()} must not overlap any other call.
 */
public final class SparseRuntime implements AutoCloseable {
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private final Layout layout;
    private final Plan plan;
    private final MemoryPool pool;
    private final NodeTree structure;
    private final CheckedCells[] cells;
    private final CheckedCells[] directories;
    private final MemorySegment[] ambient;
    private final HashTables[] tables;
    private final Collector collector;
    /** Reports this runtime if it becomes unreachable unclosed ({@link UnclosedRuntimes}). */
    private final UnclosedRuntimes.Watch watch;
    private volatile boolean closed;

    private SparseRuntime(Layout layout, RuntimeOptions options, String label) {
        this.layout = layout;
        this.plan = Plan.of(layout);
        this.pool = new MemoryPool(options.allocator(), options.memoryCapBytes(), options.releasesFreePages(),
                options.hugePages());
        pool.label(label);
        this.collector = options.collector();
        boolean built = false;
        try {
            MemorySegment root = pool.allocateChunk("root", plan.node(0).cellBytes());
            List<SNodePlan> nodes = plan.nodes();
            this.cells = new CheckedCells[nodes.size()];
            this.directories = new CheckedCells[nodes.size()];
            this.ambient = new MemorySegment[nodes.size()];
            this.tables = new HashTables[nodes.size()];
            for (SNodePlan node : nodes) {
                if (node.hasNodeManager()) {
                    // The zeroed cell that reads through an inactive pointer (or past a list's
                    // length) land on; never written.
                    ambient[node.id()] = pool.allocateChunk(node.snode().path() + " ambient", node.cellBytes());
                }
                if (node.hasChildCells()) {
                    cells[node.id()] = new CheckedCells(pool, node.snode().path(), node.cellBytes(), indexSpace(node));
                }
                if (node.kind() == NodeKind.HASH) {
                    tables[node.id()] = new HashTables(pool, node.snode().path() + " tables");
                } else if (node.kind() == NodeKind.DYNAMIC) {
                    cells[node.id()] = new CheckedCells(pool, node.snode().path(),
                            node.cellBytes() * node.chunkSize(), times(containers(node), node.maxChunks()));
                    if (node.directoryLeafFanout() > 0) {
                        int blockWords = Math.max(node.directoryLeafFanout(), node.directoryTopFanout());
                        // At most a top block and its leaf blocks per list: their region (where the
                        // pool has regions) spares a chunk lookup at each step of a directory read.
                        directories[node.id()] = new CheckedCells(pool, node.snode().path() + " directory",
                                (long) blockWords * Long.BYTES, times(containers(node), 1 + node.directoryTopFanout()));
                    }
                }
            }
            this.structure = new NodeTree(plan, root, cells, directories, ambient, tables);
            this.watch = UnclosedRuntimes.watch(this, pool, label + " of layout " + layout);
            built = true;
        } finally {
            if (!built) {
                pool.close();
            }
        }
    }

    /**
     * How many cells of {@code node} can be active at once: its containers times the cells of one
     * (saturating at {@link Long#MAX_VALUE}); the node manager of its children sizes its region by it.
     */
    private long indexSpace(SNodePlan node) {
        return times(containers(node), node.cellCount());
    }

    /** How many containers of {@code node} can exist at once: the product of the cell counts above it. */
    private long containers(SNodePlan node) {
        long containers = 1;
        for (SNode level : node.snode().ancestry()) {
            if (level != node.snode()) {
                containers = times(containers, plan.node(level).cellCount());
            }
        }
        return containers;
    }

    private static long times(long a, long b) {
        return b > 0 && a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * Math.max(1, b);
    }

    /** A runtime with the default options (memory cap: see {@link RuntimeOptions#DEFAULT}). */
    public static SparseRuntime create(Layout layout) {
        return create(layout, RuntimeOptions.DEFAULT);
    }

    /** {@link #create(Layout, RuntimeOptions, String)} labelled {@code SparseRuntime<n>}, n counting this library copy's runtimes. */
    public static SparseRuntime create(Layout layout, RuntimeOptions options) {
        return create(layout, options, "SparseRuntime" + SEQUENCE.incrementAndGet());
    }

    /**
     * A runtime of {@code layout} with {@code options}, whose JFR events (chunk allocations and
     * collections) carry {@code label} in their {@code runtime} field, so that the events of
     * several runtimes in one JVM (two of one layout too) can be told apart.
     */
    public static SparseRuntime create(Layout layout, RuntimeOptions options, String label) {
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(label, "label");
        return new SparseRuntime(layout, options, label);
    }

    /** The label of {@link #create(Layout, RuntimeOptions, String)}: the {@code runtime} field of this runtime's JFR events. */
    public String label() {
        return pool.label();
    }

    public Layout layout() {
        return layout;
    }

    public Plan plan() {
        return plan;
    }

    // ------------------------------------------------------------------ typed values

    public int getInt(String field, int... coordinates) {
        return (int) read(field, FieldType.I32, coordinates);
    }

    public long getLong(String field, int... coordinates) {
        return read(field, FieldType.I64, coordinates);
    }

    public float getFloat(String field, int... coordinates) {
        return Float.intBitsToFloat((int) read(field, FieldType.F32, coordinates));
    }

    public double getDouble(String field, int... coordinates) {
        return Double.longBitsToDouble(read(field, FieldType.F64, coordinates));
    }

    public void setInt(String field, int value, int... coordinates) {
        write(field, FieldType.I32, value, coordinates);
    }

    public void setLong(String field, long value, int... coordinates) {
        write(field, FieldType.I64, value, coordinates);
    }

    public void setFloat(String field, float value, int... coordinates) {
        write(field, FieldType.F32, Float.floatToRawIntBits(value), coordinates);
    }

    public void setDouble(String field, double value, int... coordinates) {
        write(field, FieldType.F64, Double.doubleToRawLongBits(value), coordinates);
    }

    /** Atomically adds {@code delta}, activating the cell; returns the previous value. */
    public int addInt(String field, int delta, int... coordinates) {
        return (int) add(field, FieldType.I32, delta, coordinates);
    }

    public long addLong(String field, long delta, int... coordinates) {
        return add(field, FieldType.I64, delta, coordinates);
    }

    public float addFloat(String field, float delta, int... coordinates) {
        return Float.intBitsToFloat((int) add(field, FieldType.F32, Float.floatToRawIntBits(delta), coordinates));
    }

    public double addDouble(String field, double delta, int... coordinates) {
        return Double.longBitsToDouble(add(field, FieldType.F64, Double.doubleToRawLongBits(delta), coordinates));
    }

    // ------------------------------------------------------------------ raw values

    /** The value's bits (i32 and f32 in the low 32 bits); zero for an inactive cell. */
    public long readBits(PlacedField field, int... coordinates) {
        checkOpen();
        coordinates = checkCoordinates(field, coordinates);
        Location location = new Location();
        if (!structure.locate(field.snode(), coordinates, false, location)) {
            return 0;
        }
        return FieldAccess.load(field.type(), location.segment, location.offset + fieldOffset(field));
    }

    /** Stores the value's bits, activating every level of the path. */
    public void writeBits(PlacedField field, long bits, int... coordinates) {
        checkOpen();
        coordinates = checkCoordinates(field, coordinates);
        Location location = new Location();
        structure.locate(field.snode(), coordinates, true, location);
        FieldAccess.store(field.type(), location.segment, location.offset + fieldOffset(field), bits);
    }

    /** Atomically adds the value that {@code deltaBits} encodes; returns the previous bits. */
    public long addBits(PlacedField field, long deltaBits, int... coordinates) {
        checkOpen();
        coordinates = checkCoordinates(field, coordinates);
        Location location = new Location();
        structure.locate(field.snode(), coordinates, true, location);
        return FieldAccess.add(field.type(), location.segment, location.offset + fieldOffset(field), deltaBits);
    }

    private long read(String name, FieldType type, int[] coordinates) {
        return readBits(typed(name, type), coordinates);
    }

    private void write(String name, FieldType type, long bits, int[] coordinates) {
        writeBits(typed(name, type), bits, coordinates);
    }

    private long add(String name, FieldType type, long bits, int[] coordinates) {
        return addBits(typed(name, type), bits, coordinates);
    }

    private PlacedField typed(String name, FieldType type) {
        PlacedField field = layout.field(Objects.requireNonNull(name, "field"));
        if (field.type() != type) {
            throw new IllegalArgumentException("field=" + name + " is " + field.type() + ", not " + type
                    + "; use the " + field.type() + " accessors");
        }
        return field;
    }

    private long fieldOffset(PlacedField field) {
        return plan.node(field.snode()).fieldOffset(field.slot());
    }

    // ------------------------------------------------------------------ activity

    /** Whether the cell of {@code snode} at {@code coordinates} and all its ancestors are active. */
    public boolean isActive(SNode snode, int... coordinates) {
        checkOpen();
        coordinates = checkCoordinates(snode, coordinates);
        return structure.isActive(snode, coordinates, new Location());
    }

    /** Activates the cell of {@code snode} at {@code coordinates} and all its ancestors. */
    public void activate(SNode snode, int... coordinates) {
        checkOpen();
        coordinates = checkCoordinates(snode, coordinates);
        if (snode.kind() != NodeKind.ROOT) {
            structure.locate(snode, coordinates, true, new Location());
        }
    }

    /**
     * Deactivates the cell of {@code snode} at {@code coordinates} and everything below it.
     * For a dynamic node it empties the whole list, which {@code coordinates} name as
     * {@link #append} and {@link #length} do: the coordinates of the dynamic node's parent
     * (Taichi's convention). Deactivating an inactive cell does nothing. Dense cells are always
     * active and cannot be deactivated.
     *
     * @return whether something was active (for a list: whether it held an element or a chunk)
     */
    public boolean deactivate(SNode snode, int... coordinates) {
        checkOpen();
        checkOwned(snode);
        if (snode.kind() == NodeKind.DYNAMIC) {
            return structure.deactivate(snode, listToElement(snode, coordinates, 0), new Location());
        }
        coordinates = checkCoordinates(snode, coordinates);
        return structure.deactivate(snode, coordinates, new Location());
    }

    /**
     * Deactivates, in one call, every cell of {@code snode} whose coordinates all lie in the box
     * from {@code low} (inclusive) to {@code high} (exclusive), in {@code snode}'s index space,
     * with everything below them; a cell the box cuts stays. A cell of a pointer, hash or
     * bitmasked node above {@code snode} that lies wholly in the box is deactivated too, at once
     * with its whole subtree (so the box's memory goes back in whole upper cells, and that upper
     * node reads inactive there afterwards). Dynamic nodes: deactivate their parent's cells.
     *
     * @return the cells deactivated, of {@code snode} and of the nodes above it; an upper cell
     *         released whole counts as one, the cells below it not (so a box that takes a whole
     *         upper cell may return less than a smaller box inside it)
     * @throws IllegalArgumentException for a dense node or the root, a dynamic node, a corner of
     *                                  the wrong length, or {@code low[n] > high[n]}
     * @throws IndexOutOfBoundsException for a corner outside the index space ({@code high} may equal its extent)
     */
    public long deactivateBox(SNode snode, int[] low, int[] high) {
        checkOpen();
        checkOwned(snode);
        if (snode.kind() == NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("snode=" + snode.path()
                    + " is a dynamic node: deactivate a box of its parent's cells, which clears their lists");
        }
        // Checked and used as one copy: another thread changing the caller's arrays cannot slip past the check.
        low = Objects.requireNonNull(low, "low").clone();
        high = Objects.requireNonNull(high, "high").clone();
        List<Axis> axes = snode.indexAxes();
        int[] shape = snode.indexShape();
        if (low.length != axes.size() || high.length != axes.size()) {
            throw new IllegalArgumentException("snode=" + snode.path() + " takes corners of " + axes.size()
                    + " coordinates " + axes + "; got " + low.length + " and " + high.length);
        }
        for (int n = 0; n < shape.length; n++) {
            if (low[n] < 0 || low[n] > shape[n]) {
                throw GeneratedCalls.cornerOutside("snode=" + snode.path() + " low", axes.get(n).letter(), low[n], shape[n]);
            }
            if (high[n] < 0 || high[n] > shape[n]) {
                throw GeneratedCalls.cornerOutside("snode=" + snode.path() + " high", axes.get(n).letter(), high[n], shape[n]);
            }
            if (low[n] > high[n]) {
                throw new IllegalArgumentException("snode=" + snode.path() + ": low=" + low[n] + " > high=" + high[n]
                        + " on axis " + axes.get(n).letter());
            }
        }
        return structure.deactivateBox(snode, low, high);
    }

    /**
     * Deactivates every cell of {@code snode} and everything below them (Taichi's
     * {@code deactivate_all}). On the root or a dense node, whose cells are always active, it
     * deactivates every pointer, bitmasked and dynamic node below: {@code deactivateAll(root)}
     * empties the structure, keeping only the values of dense cells above every sparse node.
     * A call that finds nothing to release (no active cell, no hash table or list chunk to give
     * back) changes nothing: the epoch stays, as for a {@link #deactivate} of an inactive cell.
     */
    public void deactivateAll(SNode snode) {
        checkOpen();
        checkOwned(snode);
        structure.deactivateAll(snode);
    }

    // ------------------------------------------------------------------ dynamic lists

    /**
     * Appends one zeroed element to the list of {@code dynamic} that lies at
     * {@code listCoordinates} (the coordinates of the dynamic node's parent), activating the
     * path to it.
     *
     * @return the new element's index
     * @throws DynamicListFullException when the list already holds its capacity
     */
    public long append(SNode dynamic, int... listCoordinates) {
        checkOpen();
        Objects.requireNonNull(dynamic, "dynamic");
        return structure.append(dynamic, listToElement(dynamic, listCoordinates, 0), new Location());
    }

    /** Appends an element and stores {@code bits} in {@code field}, which is placed on a dynamic node. */
    public long appendBits(PlacedField field, long bits, int... listCoordinates) {
        checkOpen();
        Objects.requireNonNull(field, "field");
        Location location = new Location();
        long index = structure.append(field.snode(), listToElement(field.snode(), listCoordinates, 0), location);
        FieldAccess.store(field.type(), location.segment, location.offset + fieldOffset(field), bits);
        return index;
    }

    public long appendInt(String field, int value, int... listCoordinates) {
        return appendBits(typed(field, FieldType.I32), value, listCoordinates);
    }

    public long appendLong(String field, long value, int... listCoordinates) {
        return appendBits(typed(field, FieldType.I64), value, listCoordinates);
    }

    public long appendFloat(String field, float value, int... listCoordinates) {
        return appendBits(typed(field, FieldType.F32), Float.floatToRawIntBits(value), listCoordinates);
    }

    public long appendDouble(String field, double value, int... listCoordinates) {
        return appendBits(typed(field, FieldType.F64), Double.doubleToRawLongBits(value), listCoordinates);
    }

    /** The length of the list of {@code dynamic} at {@code listCoordinates}; 0 when inactive. */
    public long length(SNode dynamic, int... listCoordinates) {
        checkOpen();
        Objects.requireNonNull(dynamic, "dynamic");
        return structure.length(dynamic, listToElement(dynamic, listCoordinates, 0), new Location());
    }

    /** Coordinates of the dynamic node's parent, with the list axis inserted at {@code index}. */
    private int[] listToElement(SNode dynamic, int[] listCoordinates, int index) {
        checkOwned(dynamic);
        Objects.requireNonNull(listCoordinates, "listCoordinates");
        if (dynamic.kind() != NodeKind.DYNAMIC) {
            throw new IllegalArgumentException("snode=" + dynamic.path() + " is " + dynamic.kind().text()
                    + ", not dynamic");
        }
        listCoordinates = checkCoordinates(dynamic.parent(), listCoordinates);
        return ListAppend.elementCoordinates(dynamic, listCoordinates, index);
    }

    // ------------------------------------------------------------------ memory

    /**
     * Reclaims the cells recycled since the last collection: zeroes them and makes them
     * available for reuse. Must not overlap any other call on this runtime.
     */
    public void collect() {
        checkOpen();
        List<CheckedCells> managers = new ArrayList<>();
        for (CheckedCells[] group : new CheckedCells[][] {cells, directories}) {
            for (CheckedCells manager : group) {
                if (manager != null) {
                    managers.add(manager);
                }
            }
        }
        for (HashTables nodeTables : tables) {
            if (nodeTables != null) {
                managers.addAll(nodeTables.managers()); // small tables retired since are recycled cells
            }
        }
        structure.advanceEpoch();
        collector.collect(managers.stream().map(CheckedCells::manager).toList());
        for (HashTables nodeTables : tables) {
            if (nodeTables != null) {
                nodeTables.freeRetired(); // no reader can hold a retired table now
            }
        }
        UnclosedRuntimes.report(); // after the collection: a failing report cannot stop it
    }

    /** Memory held and cell counts per SNode with a node manager, plus the root cell. */
    public MemoryStats memoryStats() {
        checkOpen();
        List<MemoryStats.SNodeStats> perNode = new ArrayList<>();
        for (SNodePlan node : plan.nodes()) {
            CheckedCells manager = cells[node.id()];
            if (manager != null) {
                perNode.add(new MemoryStats.SNodeStats(node.snode(), manager.manager().metrics(),
                        directories[node.id()] == null ? null : directories[node.id()].manager().metrics(),
                        tables[node.id()] == null ? null : tables[node.id()].metrics()));
            }
        }
        return new MemoryStats(pool.metrics(), perNode);
    }

    /**
     * The node algorithms over this runtime's memory, for the {@code codegen} and {@code gc}
     * modules. Not an API for applications: it bypasses every check of this class.
     */
    public NodeTree internalTree() {
        checkOpen();
        return structure;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Frees all memory of this runtime. Idempotent. Must not overlap any other call. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            pool.close();
        } finally {
            // After the pool: a report of other runtimes that fails cannot keep this one's memory.
            // Reachable until then, so its watch is not enqueued meanwhile.
            watch.closed();
            Reference.reachabilityFence(this);
        }
    }

    // ------------------------------------------------------------------ checks

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this SparseRuntime is closed; create a new one for layout " + layout);
        }
    }

    private void checkOwned(SNode snode) {
        Objects.requireNonNull(snode, "snode");
        if (snode.id() >= layout.snodes().size() || layout.snode(snode.id()) != snode) {
            throw Foreign.snode(snode, "this runtime's");
        }
    }

    /**
     * A checked copy of {@code coordinates}, which the call then uses: another thread changing the
     * caller's array after the check cannot send the walk outside the index space.
     */
    private int[] checkCoordinates(PlacedField field, int[] coordinates) {
        Objects.requireNonNull(field, "field");
        if (layout.field(field.name()) != field) {
            throw Foreign.field(field, "this runtime's");
        }
        return checkShape("field=" + field.name(), field.snode(), coordinates);
    }

    /** A checked copy of {@code coordinates}, as {@link #checkCoordinates(PlacedField, int[])} gives. */
    private int[] checkCoordinates(SNode snode, int[] coordinates) {
        checkOwned(snode);
        return checkShape("snode=" + snode.path(), snode, coordinates);
    }

    private static int[] checkShape(String what, SNode snode, int[] coordinates) {
        int[] copy = Objects.requireNonNull(coordinates, "coordinates").clone();
        List<Axis> axes = snode.indexAxes();
        if (copy.length != axes.size()) {
            throw new IllegalArgumentException(what + " takes " + axes.size() + " coordinates " + axes
                    + "; got " + copy.length);
        }
        int[] shape = snode.indexShape();
        for (int n = 0; n < copy.length; n++) {
            if (copy[n] < 0 || copy[n] >= shape[n]) {
                throw GeneratedCalls.outside(what, axes.get(n).letter(), copy[n], shape[n]);
            }
        }
        return copy;
    }
}
