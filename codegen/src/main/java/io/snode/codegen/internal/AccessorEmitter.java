package io.snode.codegen.internal;

import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.DUP2;
import static org.objectweb.asm.Opcodes.GETFIELD;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.ICONST_1;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.IFNULL;
import static org.objectweb.asm.Opcodes.IF_ICMPNE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;
import static org.objectweb.asm.Opcodes.IOR;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.ISHL;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.LADD;
import static org.objectweb.asm.Opcodes.LCMP;
import static org.objectweb.asm.Opcodes.LCONST_0;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LSTORE;
import static org.objectweb.asm.Opcodes.LSUB;
import static org.objectweb.asm.Opcodes.PUTFIELD;
import static org.objectweb.asm.Opcodes.RETURN;

import io.snode.api.Axis;
import io.snode.api.NodeKind;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.internal.LayoutEmitter.Binding;
import io.snode.codegen.internal.LayoutEmitter.Operation;
import io.snode.codegen.internal.emit.CellArithmetic;
import io.snode.codegen.internal.emit.ClassEmitter;
import io.snode.codegen.internal.emit.MethodEmitter;
import io.snode.codegen.internal.emit.PathWalk;
import io.snode.codegen.internal.emit.RuntimeMethod;
import io.snode.codegen.internal.emit.RuntimeMethods;
import io.snode.runtime.PathStep;
import io.snode.runtime.Plan;
import io.snode.runtime.SNodePlan;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/**
 * Emits the body of an accessor class: it implements an application interface, and its field
 * reads, writes and adds remember the last block they reached (per field: the cell below the
 * deepest pointer or hash node on the path) and skip the walk while the coordinates stay in
 * that block and the structure's epoch has not changed, like OpenVDB's {@code ValueAccessor}. Per cached field
 * {@code f} the instance holds {@code f$epoch} (-1 until the first walk), {@code f$key0...}
 * (the coordinates divided by the sizes below the cached level; one {@code f$key} holding them
 * all side by side where their ranges fit in 31 bits, as in every usual layout), {@code f$segment} (only where
 * the level's cells lie in chunks: in a region the segment is the constant {@code REGION_<id>})
 * and {@code f$offset}. Where the interface reads {@code f}, a private method {@code f$fill}
 * walks to the cached level and remembers what it found; writes and adds do the same walk in
 * their own method. One instance serves one thread.
 *
 * <p>Where {@code f} lies in a dynamic node right below the cached level (its lists are in the
 * remembered cell: particles in blocks), the instance also remembers, for the list of that
 * cell, a length it had ({@code f$listLength}: an element below it is active without reading
 * the length again) and one chunk ({@code f$chunk}, its number, -1 for none, and
 * {@code f$chunkOffset}, with {@code f$chunkSegment} where the chunks lie in chunks of memory
 * of their own), which an element's access uses instead of the chunk lookup when the element
 * lies in it; the accessor's appends to such a list test the remembered cell as a read does and
 * go to the list without the walk when it is the list's, and the walk of a miss remembers the
 * cell it reaches. Whatever remembers another cell (a walk, a view's block entry) forgets the
 * list's length and chunk. They hold while the cell does: a list only grows, and its chunks stay
 * where they are, until a deactivation, which starts a new epoch. A racing deactivation is the
 * caller's race, as for the remembered cell: an append then stores into the chunk it
 * remembers, memory the deactivation recycled and the next collection zeroes, where the walk
 * would have found no chunk; either way the element went with the list.
 */
final class AccessorEmitter {
    /**
     * What an accessor remembers for one field: the cell reached after path step {@code level}
     * (the deepest pointer or hash node on the path), keyed by the coordinates divided by
     * {@code divisors} (the sizes below that level), and the epoch in which it was found; with
     * {@code listMemo} (null where the field's SNode is not a dynamic node whose lists lie right
     * in that cell), what it remembers of that cell's list.
     */
    private record Cache(String prefix, int level, long[] divisors, String region, int[] keyShifts,
                         PathWalk.ListMemo listMemo) {
        /** Whether the cached cell's segment is a constant (the region of the level's cells), not a field. */
        boolean inRegion() {
            return region != null;
        }

        /**
         * Whether the keys are packed into one int, key {@code n} shifted left by
         * {@code keyShifts[n]} (each key's range has its own bits, so the packed value is equal
         * exactly when every key is).
         */
        boolean packed() {
            return keyShifts != null;
        }
    }

    private final Plan plan;
    private final ClassEmitter owner;
    private final FieldBodies bodies;
    private final String segmentDescriptor = Type.getDescriptor(MemorySegment.class);
    /**
     * How the epoch is read: plainly in a view driver ({@code GeneratedCalls.epochInLaunch}: it is
     * used only inside a launch, where no collection runs, and sees its own thread's
     * deactivations), with a volatile read in an accessor, which lives across collections and
     * threads' direct calls ({@code GeneratedCalls.epoch}).
     */
    private final RuntimeMethod epochRead;

    AccessorEmitter(Plan plan, ClassEmitter owner, FieldBodies bodies, boolean inLaunch) {
        this.plan = plan;
        this.owner = owner;
        this.bodies = bodies;
        this.epochRead = inLaunch ? RuntimeMethods.EPOCH_IN_LAUNCH : RuntimeMethods.EPOCH;
    }

    /** The constructor, the cache fields and one method per binding. */
    void emit(List<Binding> bindings) {
        MethodEmitter init = owner.method(ACC_PUBLIC, "<init>", "()V", List.of());
        init.visitVarInsn(ALOAD, 0);
        init.invoke(RuntimeMethods.OBJECT_INIT);
        Set<String> declared = new HashSet<>();
        for (Binding binding : bindings) {
            Cache cache = declaredCache(binding);
            if (cache != null && declared.add(cache.prefix())) {
                field(cache.prefix() + "epoch", "J");
                if (cache.packed()) {
                    field(cache.prefix() + "key", "I");
                } else {
                    for (int n = 0; n < binding.field().dimensionality(); n++) {
                        field(cache.prefix() + "key" + n, "I");
                    }
                }
                if (!cache.inRegion()) {
                    field(cache.prefix() + "segment", segmentDescriptor);
                }
                field(cache.prefix() + "offset", "J");
                init.visitVarInsn(ALOAD, 0);
                init.pushLong(-1);
                init.visitFieldInsn(PUTFIELD, owner.className(), cache.prefix() + "epoch", "J");
                PathWalk.ListMemo list = cache.listMemo();
                if (list != null) {
                    field(list.length(), "J");
                    field(list.chunk(), "J");
                    field(list.chunkOffset(), "J");
                    if (list.chunkSegment() != null) {
                        field(list.chunkSegment(), segmentDescriptor);
                    }
                    forgetList(init, list);
                }
            }
        }
        init.visitInsn(RETURN);
        init.end();
        Set<String> filled = new HashSet<>();
        for (Binding binding : bindings) {
            // Only reads call the fill method; a write's miss walks in the write method itself.
            Cache cache = binding.operation() == Operation.GET || binding.operation() == Operation.CELL_GET
                    ? cacheFor(binding.field()) : null;
            if (cache != null && filled.add(cache.prefix())) {
                emitFill(binding.field(), cache);
            }
        }
        Set<String> atMethods = new HashSet<>();
        SNode visited = null;
        for (Binding binding : bindings) {
            if (binding.operation().ofVisitedCell()) {
                visited = binding.field().snode();
                if (atMethods.add(atName(binding))) {
                    emitAt(binding);
                }
            }
        }
        if (visited != null) {
            field(VISITED + "epoch", "J");
            field(VISITED + "segment", segmentDescriptor);
            field(VISITED + "base", "J");
            field(VISITED + "index", "J");
            for (int n = 0; n < visited.indexAxes().size(); n++) {
                field(VISITED + "origin" + n, "I");
            }
        }
        for (Binding binding : bindings) {
            emitMethod(binding);
        }
    }

    /**
     * Prefix of a view's fields for the cell being visited ({@code $cell$epoch}, {@code segment},
     * {@code base}, {@code index}, {@code origin0...}); no field's prefix can equal it, since
     * field names do not contain {@code $}.
     */
    private static final String VISITED = "$cell$";

    /**
     * {@code private T <field>$at(coordinates)} or {@code private void <field>$setAt(coordinates,
     * T value)}: the accessor's read or write, for an access of the visited cell after the
     * structure changed.
     */
    private void emitAt(Binding binding) {
        PlacedField field = binding.field();
        boolean write = binding.operation() == Operation.CELL_SET;
        MethodEmitter mv = bodies.begin(ACC_PRIVATE, atName(binding), atDescriptor(binding),
                FieldBodies.names(field.axes(), write ? "value" : null));
        Cache cache = cacheFor(field);
        FieldBodies.Walk cached = cache == null ? null
                : (walk, inactive, isWrite) -> emitCachedWalk(walk, field, cache, inactive, isWrite);
        if (write) {
            bodies.store(mv, field, false, cached);
        } else {
            bodies.get(mv, field, cached);
        }
    }

    private static String atName(Binding binding) {
        return binding.field().name() + (binding.operation() == Operation.CELL_SET ? "$setAt" : "$at");
    }

    private static String atDescriptor(Binding binding) {
        PlacedField field = binding.field();
        String type = Type.getDescriptor(field.type().javaType());
        String coordinates = "I".repeat(field.dimensionality());
        return binding.operation() == Operation.CELL_SET ? "(" + coordinates + type + ")V" : "(" + coordinates + ")" + type;
    }

    /**
     * A read or write of the visited cell (in a view driver): {@code if (epochInLaunch() ==
     * $cell$epoch) return $cell$segment.get(LAYOUT, $cell$base + $cell$index * CELL_BYTES +
     * FIELD_OFFSET)} (or {@code .set(..., value)}), {@code else return <field>$at(coordinates of
     * the visited cell)} (or {@code $setAt(..., value)}). The epoch is read plainly (see
     * {@link #epochRead}): a volatile read per cell kept the JIT from reusing the view's fields
     * across cells (3 to 7 % of a per-cell launch on L2 in a probe). The epoch is the
     * snapshot's, so while it holds, no deactivation or collection happened since the walk: the
     * block is still where the snapshot found it, the visited cell is still active (a write
     * needs no activation), and an inactive cell in it is zero. After one (a kernel of this
     * launch deactivated something), the access takes the accessor's way from the coordinates,
     * which sees what the deactivation did (a write activates again). A write racing another
     * thread's deactivation of the same cell is the caller's race, as through an accessor. Over
     * a dynamic node the visited cell is a list's element, at {@code $cell$base} of its chunk
     * ({@link #enterChunk}); where the chunk had no memory when the launch resolved the lists'
     * chunks, {@code $cell$segment} is null and the access takes the accessor's way as well
     * (which sees memory a later write gave the chunk).
     */
    private void emitVisitedCell(MethodEmitter mv, Binding binding) {
        PlacedField field = binding.field();
        boolean write = binding.operation() == Operation.CELL_SET;
        String self = owner.className();
        SNodePlan visited = plan.node(field.snode());
        ValueType value = ValueType.of(field.type());
        Label moved = new Label();
        if (visited.kind() == NodeKind.DYNAMIC) {
            // a chunk without memory when the snapshot's chunks were resolved (see enterChunk)
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, self, VISITED + "segment", segmentDescriptor);
            mv.visitJumpInsn(IFNULL, moved);
        }
        owner.getConstant(mv, "STRUCTURE");
        mv.invoke(epochRead);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, self, VISITED + "epoch", "J");
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, moved);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, self, VISITED + "segment", segmentDescriptor);
        value.pushLayout(mv);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, self, VISITED + "base", "J");
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, self, VISITED + "index", "J");
        mv.multiply(visited.cellBytes());
        mv.visitInsn(LADD);
        mv.addLong(visited.fieldOffset(field.slot()));
        if (write) {
            mv.visitVarInsn(value.load(), mv.parameter(0));
            mv.invoke(value.set);
            mv.visitInsn(RETURN);
        } else {
            mv.invoke(value.get);
            mv.visitInsn(value.returns());
        }
        mv.visitLabel(moved);
        mv.visitVarInsn(ALOAD, 0);
        for (int n = 0; n < field.snode().indexAxes().size(); n++) {
            // origin + the cell's local coordinate, as the driver computes it
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, self, VISITED + "origin" + n, "I");
            DriverEmitter.addLocal(mv, visited, n, () -> {
                mv.visitVarInsn(ALOAD, 0);
                mv.visitFieldInsn(GETFIELD, self, VISITED + "index", "J");
            });
        }
        if (write) {
            mv.visitVarInsn(value.load(), mv.parameter(0));
        }
        mv.visitMethodInsn(INVOKEVIRTUAL, self, atName(binding), atDescriptor(binding), false);
        mv.visitInsn(write ? RETURN : value.returns());
        bodies.end(mv);
    }

    /**
     * A view driver's block entry ({@link DriverEmitter#emitView}): for every field of
     * {@code target} read or written through {@code bindings} whose remembered cell is the
     * target's block itself (the deepest pointer or hash node on its path is the target's
     * parent, and its coordinates are the target's), remembers the block being entered: the
     * snapshot's epoch, the block's base coordinates as the key, its segment (outside a region)
     * and the offset of the parent's cell that holds it (the container's offset less the
     * target's place in that cell, {@link PathStep#containerOffset()}: a pointer cell may hold
     * the containers of several children side by side). Stamping the snapshot's epoch, not the structure's now, keeps
     * the view correct when the structure changed since the walk (a kernel of the same launch
     * deactivated something): the epoch then differs, and the first access walks as any
     * accessor's miss does. With accesses of the visited cell ({@code CELL_GET}, {@code CELL_SET}), it also keeps
     * the block's epoch, segment, cells' base and origin per block and the cell's index per
     * cell ({@link #emitVisitedCell}; over a dynamic node the segment and base per chunk of the
     * list, {@link #enterChunk}). Null when there is nothing to prime.
     */
    DriverEmitter.BlockEntry primer(List<Binding> bindings, SNodePlan target) {
        List<Cache> primed = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long placeInCell = 0; // the same for every primed field: their paths end in the target's step
        for (Binding binding : bindings) {
            PlacedField field = binding.field();
            Cache cache = binding.operation() == Operation.APPEND ? null : cacheFor(field);
            if (cache != null && field.snode() == target.snode()
                    && cache.level() == plan.path(field).size() - 2
                    && field.axes().equals(target.snode().indexAxes()) && seen.add(cache.prefix())) {
                primed.add(cache);
                placeInCell = plan.path(field).getLast().containerOffset();
            }
        }
        boolean visitedCell = bindings.stream().anyMatch(b -> b.operation().ofVisitedCell());
        if (primed.isEmpty() && !visitedCell) {
            return null;
        }
        String self = owner.className();
        long place = placeInCell;
        return new DriverEmitter.BlockEntry() {
            @Override
            public void enter(MethodEmitter mv, int blocks, int block, int bases, int baseAt) {
                prime(mv, primed, place, blocks, block, bases, baseAt);
                if (visitedCell) {
                    enterVisited(mv, target, blocks, block, bases, baseAt);
                }
            }

            /** this.$cell$index = index (after entering the element's chunk, in a list: {@link #enterChunk}) */
            @Override
            public void cell(MethodEmitter mv, int blocks, int block, int index) {
                if (visitedCell) {
                    if (target.kind() == NodeKind.DYNAMIC) {
                        enterChunk(mv, target, blocks, block, index);
                    }
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(LLOAD, index);
                    mv.visitFieldInsn(PUTFIELD, self, VISITED + "index", "J");
                }
            }
        };
    }

    /**
     * For reads of the visited cell: {@code $cell$epoch = blocks.epochStamp(); $cell$segment =
     * blocks.segment(block); $cell$base = blocks.container(block) + CELLS_OFFSET; $cell$origin<n>
     * = bases[baseAt + n] * SIZE_n} (the base itself on axes the node does not consume).
     */
    private void enterVisited(MethodEmitter mv, SNodePlan target, int blocks, int block, int bases, int baseAt) {
        String self = owner.className();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, blocks);
        mv.invoke(RuntimeMethods.BLOCK_EPOCH_STAMP);
        mv.visitFieldInsn(PUTFIELD, self, VISITED + "epoch", "J");
        if (target.kind() != NodeKind.DYNAMIC) { // a list's elements lie in chunks: see enterChunk
            storeBlockSegment(mv, blocks, block, VISITED + "segment");
            storeBlockContainer(mv, blocks, block, target.cellsOffset(), VISITED + "base");
        }
        for (int n = 0; n < target.snode().indexAxes().size(); n++) {
            mv.visitVarInsn(ALOAD, 0);
            DriverEmitter.pushOrigin(mv, target, bases, baseAt, n);
            mv.visitFieldInsn(PUTFIELD, self, VISITED + "origin" + n, "I");
        }
    }

    /**
     * For accesses of a list's visited element, at the first element of each chunk:
     * {@code if (index % CHUNK_SIZE == 0) { $cell$segment = blocks.chunkSegment(block, index /
     * CHUNK_SIZE); $cell$base = blocks.chunkOffset(block, index / CHUNK_SIZE) - index *
     * CELL_BYTES; }}, so that {@code $cell$base + index * CELL_BYTES} is the element's place in
     * its chunk, as for a cell of a block. The segment is null where the chunk had no memory when
     * the snapshot's chunks were resolved: the element is then read and written through its
     * coordinates ({@link #emitVisitedCell}).
     */
    private void enterChunk(MethodEmitter mv, SNodePlan target, int blocks, int block, int index) {
        String self = owner.className();
        Label same = new Label();
        mv.visitVarInsn(LLOAD, index);
        mv.remainder(target.chunkSize());
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, same);
        mv.visitVarInsn(ALOAD, 0);
        pushChunk(mv, target, blocks, block, index);
        mv.invoke(RuntimeMethods.BLOCK_CHUNK_SEGMENT);
        mv.visitFieldInsn(PUTFIELD, self, VISITED + "segment", segmentDescriptor);
        mv.visitVarInsn(ALOAD, 0);
        pushChunk(mv, target, blocks, block, index);
        mv.invoke(RuntimeMethods.BLOCK_CHUNK_OFFSET);
        mv.visitVarInsn(LLOAD, index);
        mv.multiply(target.cellBytes());
        mv.visitInsn(LSUB);
        mv.visitFieldInsn(PUTFIELD, self, VISITED + "base", "J");
        mv.visitLabel(same);
    }

    /** Pushes {@code blocks, block, index / CHUNK_SIZE}. */
    private static void pushChunk(MethodEmitter mv, SNodePlan target, int blocks, int block, int index) {
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        mv.visitVarInsn(LLOAD, index);
        mv.divide(target.chunkSize());
    }

    /** {@code this.<field> = blocks.segment(block)} */
    private void storeBlockSegment(MethodEmitter mv, int blocks, int block, String field) {
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        mv.invoke(RuntimeMethods.BLOCK_SEGMENT);
        mv.visitFieldInsn(PUTFIELD, owner.className(), field, segmentDescriptor);
    }

    /** {@code this.<field> = blocks.container(block) + addend} */
    private void storeBlockContainer(MethodEmitter mv, int blocks, int block, long addend, String field) {
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, blocks);
        mv.visitVarInsn(ILOAD, block);
        mv.invoke(RuntimeMethods.BLOCK_CONTAINER);
        mv.addLong(addend);
        mv.visitFieldInsn(PUTFIELD, owner.className(), field, "J");
    }

    /** The primer's stores of the remembered blocks (see {@link #primer}). */
    private void prime(MethodEmitter mv, List<Cache> primed, long place, int blocks, int block, int bases,
                       int baseAt) {
        String self = owner.className();
        for (Cache cache : primed) {
            String prefix = cache.prefix();
            // this.f$epoch = blocks.epochStamp()
            mv.visitVarInsn(ALOAD, 0);
            mv.visitVarInsn(ALOAD, blocks);
            mv.invoke(RuntimeMethods.BLOCK_EPOCH_STAMP);
            mv.visitFieldInsn(PUTFIELD, self, prefix + "epoch", "J");
            // this.f$key = bases[baseAt] << shift0 | bases[baseAt + 1] << shift1 ... (or f$key0.. = bases[baseAt + n])
            if (cache.packed()) {
                mv.visitVarInsn(ALOAD, 0);
                emitPackedKey(mv, cache, n -> DriverEmitter.pushBase(mv, bases, baseAt, n));
                mv.visitFieldInsn(PUTFIELD, self, prefix + "key", "I");
            } else {
                for (int n = 0; n < cache.divisors().length; n++) {
                    mv.visitVarInsn(ALOAD, 0);
                    DriverEmitter.pushBase(mv, bases, baseAt, n);
                    mv.visitFieldInsn(PUTFIELD, self, prefix + "key" + n, "I");
                }
            }
            if (!cache.inRegion()) {
                storeBlockSegment(mv, blocks, block, prefix + "segment");
            }
            storeBlockContainer(mv, blocks, block, -place, prefix + "offset");
            PathWalk.ListMemo list = cache.listMemo();
            if (list != null) {
                forgetList(mv, list);
            }
        }
    }

    private void field(String name, String descriptor) {
        owner.writer().visitField(ACC_PRIVATE, name, descriptor, null, null).visitEnd();
    }

    private void emitMethod(Binding binding) {
        Method method = binding.method();
        PlacedField field = binding.field();
        MethodEmitter mv = bodies.begin(method.getName(), Type.getMethodDescriptor(method), false,
                FieldBodies.names(binding));
        Cache cache = cacheFor(field);
        FieldBodies.Walk cached = cache == null ? null : (walk, inactive, write) -> emitCachedWalk(walk, field, cache, inactive, write);
        switch (binding.operation()) {
            case GET -> bodies.get(mv, field, cached);
            case SET -> bodies.store(mv, field, false, cached);
            case ADD -> bodies.store(mv, field, true, cached);
            case APPEND -> bodies.append(mv, field, listBlock(field));
            case CELL_GET, CELL_SET -> emitVisitedCell(mv, binding);
        }
    }

    /** The cache for {@code field}'s accesses, or null when its path has no pointer or hash node to skip. */
    private Cache cacheFor(PlacedField field) {
        List<PathStep> path = plan.path(field);
        int level = -1;
        for (int n = 0; n < path.size(); n++) {
            if (path.get(n).node().hasChildCells()) {
                level = n;
            }
        }
        if (level < 0) {
            return null;
        }
        List<Axis> axes = field.axes();
        long[] divisors = new long[axes.size()];
        List<SNode> chain = field.snode().ancestry();
        for (int n = 0; n < axes.size(); n++) {
            long divisor = 1;
            for (int below = level + 2; below < chain.size(); below++) {
                divisor *= chain.get(below).size(axes.get(n));
            }
            divisors[n] = divisor;
        }
        String region = "REGION_" + path.get(level).node().id();
        String prefix = field.name() + "$";
        SNodePlan last = path.getLast().node();
        PathWalk.ListMemo list = last.kind() != NodeKind.DYNAMIC || level != path.size() - 2 ? null
                : new PathWalk.ListMemo(owner.className(), prefix + "listLength", prefix + "chunk", prefix + "chunkOffset",
                        owner.hasConstant("REGION_" + last.id()) ? null : prefix + "chunkSegment");
        return new Cache(prefix, level, divisors, owner.hasConstant(region) ? region : null,
                keyShifts(field.snode().indexShape(), divisors), list);
    }

    /**
     * The shift of each key in one int (the last axis's lowest), key {@code n} ranging over
     * {@code [0, ceil(extents[n] / divisors[n]))}; null when together they need more than 31 bits.
     */
    private static int[] keyShifts(int[] extents, long[] divisors) {
        int[] shifts = new int[divisors.length];
        int bits = 0;
        for (int n = divisors.length - 1; n >= 0; n--) {
            long range = (extents[n] + divisors[n] - 1) / divisors[n];
            shifts[n] = bits;
            bits += Long.SIZE - Long.numberOfLeadingZeros(Math.max(0, range - 1));
        }
        return bits <= Integer.SIZE - 1 ? shifts : null;
    }

    /**
     * Uses the remembered cell when the epoch and the key match; otherwise a read calls the
     * field's {@code fill} method and a write walks and remembers in place (inactive levels jump
     * to {@code inactive}). Then walks the levels below the cached one. A read's walk to the
     * cached level lives in that method of its own, so that a read that hits (the common case)
     * stays small enough for the JIT to inline into its caller.
     */
    private boolean emitCachedWalk(PathWalk walk, PlacedField field, Cache cache, Label inactive, boolean write) {
        MethodEmitter mv = walk.mv();
        List<PathStep> path = plan.path(field);
        int dims = field.dimensionality();
        String self = owner.className();
        Label miss = new Label();
        Label load = new Label();
        // A write's miss walks here and remembers the epoch and the key read for the test (the
        // epoch is read before the walk either way); a read's fill method reads its own.
        int epoch = write ? mv.newLocal("epoch", Type.LONG_TYPE) : -1;
        int key = write && cache.packed() ? mv.newLocal("key", Type.INT_TYPE) : -1;
        if (key >= 0) {
            emitPackedKey(mv, cache);
            mv.visitVarInsn(ISTORE, key);
        }
        testRemembered(mv, cache, dims, epoch, key, miss);
        mv.visitJumpInsn(GOTO, load);

        mv.visitLabel(miss); // if (!fill(coordinates)) goto inactive
        if (write) {
            // A write's miss walks here: C2 will not inline the fill method into a call site
            // that runs on a sixth of the calls ("already compiled into a medium method"),
            // and a call kept on the miss path made C2 store most of the caller's registers on
            // the hit path. The write method is then too large to inline into its caller, and
            // one call per write cost less than those stores in a probe (W1s L1: 180-235 ->
            // 146-181 ms, alternating JVMs). Reads, whose hit path their callers inline (a
            // struct-for kernel's loop), keep the call.
            fillBody(walk, field, cache, inactive, epoch, key);
        } else {
            mv.visitVarInsn(ALOAD, 0);
            for (int n = 0; n < dims; n++) {
                mv.visitVarInsn(ILOAD, mv.parameter(n));
            }
            mv.visitMethodInsn(INVOKEVIRTUAL, self, fillName(cache), fillDescriptor(dims), false);
            mv.visitJumpInsn(IFEQ, inactive);
        }

        mv.visitLabel(load);
        loadRemembered(walk, cache);
        walk.rememberList(cache.listMemo());
        if (write) {
            walk.walkToWrite(path, cache.level() + 1, path.size(), inactive);
        } else {
            // Below the cached level lie only dense, bitmasked and dynamic steps: as a read, a
            // bitmasked cell is entered without its bit's test (BitmaskedEmitUnit).
            walk.walk(path, cache.level() + 1, path.size(), inactive, true);
        }
        walk.rememberList(null);
        return true;
    }

    /**
     * {@code private boolean <field>$fill(coordinates)}: reads the epoch, walks from the root to
     * the cached level and remembers the cell reached, its key and that epoch; false (nothing
     * remembered) when a level on the way is inactive.
     */
    private void emitFill(PlacedField field, Cache cache) {
        int dims = field.dimensionality();
        MethodEmitter mv = owner.method(ACC_PRIVATE, fillName(cache), fillDescriptor(dims),
                FieldBodies.names(field.axes(), null));
        Label inactive = new Label();
        fillBody(new PathWalk(owner, mv), field, cache, inactive, -1, -1);
        mv.visitInsn(ICONST_1);
        mv.visitInsn(IRETURN);
        mv.visitLabel(inactive);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IRETURN);
        mv.end();
    }

    /**
     * {@link #emitFill}'s body inline in an access method: walks to the cached level and
     * remembers it, or jumps to {@code inactive}. {@code epoch} and {@code key}: locals holding
     * the epoch read before the walk and the packed key, or -1 to read and compute them here.
     */
    private void fillBody(PathWalk walk, PlacedField field, Cache cache, Label inactive, int epoch, int key) {
        MethodEmitter mv = walk.mv();
        if (epoch < 0) {
            epoch = mv.newLocal("epoch", Type.LONG_TYPE);
            owner.getConstant(mv, "STRUCTURE");
            mv.invoke(epochRead);
            mv.visitVarInsn(LSTORE, epoch);
        }
        walk.walk(plan.path(field), 0, cache.level() + 1, inactive, false);
        remember(walk, field.dimensionality(), cache, epoch, key);
    }

    /**
     * Remembers the cell in the walk's locals, with the epoch in local {@code epoch} and the key
     * in local {@code key} (or, at -1, computed from the first {@code dims} coordinates), and
     * forgets the list memo.
     */
    private void remember(PathWalk walk, int dims, Cache cache, int epoch, int key) {
        MethodEmitter mv = walk.mv();
        String self = owner.className();
        String prefix = cache.prefix();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, epoch);
        mv.visitFieldInsn(PUTFIELD, self, prefix + "epoch", "J");
        if (cache.packed()) {
            mv.visitVarInsn(ALOAD, 0);
            if (key >= 0) {
                mv.visitVarInsn(ILOAD, key);
            } else {
                emitPackedKey(mv, cache);
            }
            mv.visitFieldInsn(PUTFIELD, self, prefix + "key", "I");
        } else {
            for (int n = 0; n < dims; n++) {
                mv.visitVarInsn(ALOAD, 0);
                emitKey(mv, n, cache.divisors()[n]);
                mv.visitFieldInsn(PUTFIELD, self, prefix + "key" + n, "I");
            }
        }
        if (!cache.inRegion()) {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitVarInsn(ALOAD, walk.segment());
            mv.visitFieldInsn(PUTFIELD, self, prefix + "segment", segmentDescriptor);
        }
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(LLOAD, walk.offset());
        mv.visitFieldInsn(PUTFIELD, self, prefix + "offset", "J");
        PathWalk.ListMemo list = cache.listMemo();
        if (list != null) {
            forgetList(mv, list);
        }
    }

    /**
     * Jumps to {@code miss} unless the remembered cell is the one of the coordinates: reads the
     * epoch (into local {@code epoch} too, unless it is -1) and compares it, then the key (in
     * local {@code key}, or computed from the first {@code dims} coordinates where it is -1).
     */
    private void testRemembered(MethodEmitter mv, Cache cache, int dims, int epoch, int key, Label miss) {
        String self = owner.className();
        String prefix = cache.prefix();
        owner.getConstant(mv, "STRUCTURE");
        mv.invoke(epochRead);
        if (epoch >= 0) {
            mv.visitInsn(DUP2);
            mv.visitVarInsn(LSTORE, epoch);
        }
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, self, prefix + "epoch", "J");
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFNE, miss);
        if (cache.packed()) {
            if (key >= 0) {
                mv.visitVarInsn(ILOAD, key);
            } else {
                emitPackedKey(mv, cache);
            }
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, self, prefix + "key", "I");
            mv.visitJumpInsn(IF_ICMPNE, miss);
        } else {
            for (int n = 0; n < dims; n++) {
                mv.visitVarInsn(ALOAD, 0);
                mv.visitFieldInsn(GETFIELD, self, prefix + "key" + n, "I");
                emitKey(mv, n, cache.divisors()[n]);
                mv.visitJumpInsn(IF_ICMPNE, miss);
            }
        }
    }

    /** segment, offset := the remembered cell (the region constant or {@code <field>$segment}, and {@code <field>$offset}). */
    private void loadRemembered(PathWalk walk, Cache cache) {
        MethodEmitter mv = walk.mv();
        if (cache.inRegion()) {
            owner.getConstant(mv, cache.region());
        } else {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitFieldInsn(GETFIELD, owner.className(), cache.prefix() + "segment", segmentDescriptor);
        }
        mv.visitVarInsn(ASTORE, walk.segment());
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, owner.className(), cache.prefix() + "offset", "J");
        mv.visitVarInsn(LSTORE, walk.offset());
    }

    /**
     * {@code this.<length> = 0; this.<chunk> = -1}: the remembered cell changed (or is new), so
     * nothing of its list is known.
     */
    private static void forgetList(MethodEmitter mv, PathWalk.ListMemo list) {
        mv.visitVarInsn(ALOAD, 0);
        mv.visitInsn(LCONST_0);
        mv.visitFieldInsn(PUTFIELD, list.owner(), list.length(), "J");
        mv.visitVarInsn(ALOAD, 0);
        mv.pushLong(-1);
        mv.visitFieldInsn(PUTFIELD, list.owner(), list.chunk(), "J");
    }

    /**
     * The cache whose fields {@code binding}'s method uses: its field's for a read or write; for
     * an append, the same where the append goes through the cached cell ({@link #listBlock}),
     * else none. So an interface that only appends declares the fields its appends remember.
     */
    private Cache declaredCache(Binding binding) {
        return binding.operation() == Operation.APPEND ? appendCache(binding.field()) : cacheFor(binding.field());
    }

    /** The cache an append to a list of {@code field}'s SNode goes through ({@link #listBlock}), or null. */
    private Cache appendCache(PlacedField field) {
        Cache cache = cacheFor(field);
        return cache != null && cache.listMemo() != null && cache.packed() ? cache : null;
    }

    /**
     * How an append to a list of {@code field}'s SNode uses the cache of its fields, where the
     * list lies right in the remembered cell and the key is packed; null elsewhere. The test
     * reads the epoch and computes the key as a read does, without the list's own axis (the
     * last: its key is 0, every index of a list divided by its capacity); the walk from the root
     * remembers the cell it reaches with that epoch and key, and forgets the list memo.
     */
    private FieldBodies.ListBlock listBlock(PlacedField field) {
        Cache cache = appendCache(field);
        if (cache == null) {
            return null;
        }
        PathWalk.ListMemo list = cache.listMemo();
        int listAxis = field.snode().indexAxes().size() - 1;
        return new FieldBodies.ListBlock() {
            private int epoch = -1;
            private int key = -1;

            @Override
            public void test(PathWalk walk, Label remembered) {
                MethodEmitter mv = walk.mv();
                Label miss = new Label();
                epoch = mv.newLocal("epoch", Type.LONG_TYPE);
                key = mv.newLocal("key", Type.INT_TYPE);
                emitPackedKey(mv, cache, listAxis, n -> emitKey(mv, n, cache.divisors()[n]));
                mv.visitVarInsn(ISTORE, key);
                testRemembered(mv, cache, listAxis, epoch, key, miss);
                loadRemembered(walk, cache);
                mv.visitJumpInsn(GOTO, remembered);
                mv.visitLabel(miss);
            }

            @Override
            public void remember(PathWalk walk) {
                AccessorEmitter.this.remember(walk, listAxis, cache, epoch, key);
            }

            @Override
            public PathWalk.ListMemo list() {
                return list;
            }
        };
    }

    private static String fillName(Cache cache) {
        return cache.prefix() + "fill";
    }

    private static String fillDescriptor(int dims) {
        return "(" + "I".repeat(dims) + ")Z";
    }

    /** Pushes the packed key: {@code (key0 << shift0) | (key1 << shift1) | ...}. */
    private static void emitPackedKey(MethodEmitter mv, Cache cache) {
        emitPackedKey(mv, cache, n -> emitKey(mv, n, cache.divisors()[n]));
    }

    /** Pushes the packed key of the keys {@code pushKey} pushes (key {@code n} for its argument {@code n}). */
    private static void emitPackedKey(MethodEmitter mv, Cache cache, IntConsumer pushKey) {
        emitPackedKey(mv, cache, cache.keyShifts().length, pushKey);
    }

    /** As above, of the first {@code keys} keys only: the others are 0. */
    private static void emitPackedKey(MethodEmitter mv, Cache cache, int keys, IntConsumer pushKey) {
        int[] shifts = cache.keyShifts();
        for (int n = 0; n < keys; n++) {
            pushKey.accept(n);
            if (shifts[n] > 0) {
                mv.pushInt(shifts[n]);
                mv.visitInsn(ISHL);
            }
            if (n > 0) {
                mv.visitInsn(IOR);
            }
        }
    }

    /** Pushes coordinate {@code n} divided by {@code divisor}: the block key on that axis. */
    private static void emitKey(MethodEmitter mv, int n, long divisor) {
        mv.visitVarInsn(ILOAD, mv.parameter(n));
        CellArithmetic.intSplit(mv, divisor, 1, true);
    }
}
