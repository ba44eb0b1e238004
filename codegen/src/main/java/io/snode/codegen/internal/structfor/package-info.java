/**
 * Struct-for: the snapshot a launch iterates, its walk, when a snapshot is reused, how a launch
 * is cut into ranges, and the reductions on the same ranges.
 *
 * <p><b>Snapshot.</b> A launch over an SNode (the <em>target</em>) first takes a snapshot of its
 * active blocks ({@link io.snode.codegen.internal.structfor.ActiveBlocks}): every active cell of
 * the target's parent, that is every container of the target, with its memory, its base
 * coordinates and, read at the same moment, which of its cells are active (a copy of the
 * bitmask or of the pointer words' activity, a list's length;
 * {@link io.snode.codegen.internal.structfor.TargetKind}). The walk from the root
 * ({@link io.snode.codegen.internal.structfor.SnapshotWalk}, or the walk generated for a target
 * under a pointer parent) lists the blocks in memory order. A launch visits the cells of its
 * snapshot, so cells activated after it began are not visited.  With a parallelism above 1, a large walk under
 * a pointer parent runs its two phases on the calling thread and the launches' pool as well
 * ({@link io.snode.codegen.internal.structfor.WalkSplit}), giving the same blocks in the same
 * order.
 *
 * <p><b>Epoch, activations, reuse.</b> The structure keeps two counters: the <em>epoch</em>
 * advances on every deactivation that changes something and on every collection (anything
 * after which memory a snapshot points to may hold other cells or none; a deactivation that
 * finds its cell inactive, or no active cell in its box, leaves it), the <em>activation stamp</em> moves once an
 * activation completed (a mark that each activation sets, and that a stamp reads and clears:
 * {@link io.snode.runtime.internal.NodeTree#activationStamp()}). {@link io.snode.codegen.internal.structfor.SnapshotCache} is their only
 * reader for struct-for: it stamps each snapshot with both, read before its walk began, and
 * keeps the snapshot of the latest launch per target that returned normally. The next launch
 * over that target uses it as it is when both counters are unchanged (no walk; the launcher's
 * {@code walks()} does not advance), and otherwise walks again into the same arrays. A change
 * that completes during a walk changes a counter after the stamp was read, so the next launch
 * walks again; a refused call (a full list, the memory cap) changes neither.
 *
 * <p><b>Kept sets.</b> {@code SNodeRuntime.activeSet} takes a snapshot the caller keeps for
 * several launches ({@code ActiveSet}, like OpenVDB's {@code LeafManager}). It is never reused by
 * other launches and never refilled. It goes stale only when the epoch moves: cells activated
 * later are simply not in it, as for any launch, but after a deactivation or collection its
 * blocks could be memory of other cells, so a launch over a stale set throws.
 *
 * <p><b>Lists.</b> A dynamic target's blocks are its lists. The snapshot records each list's
 * length (acquire); the block forms hand a list over as its chunks
 * ({@link io.snode.codegen.internal.structfor.ListChunks}: resolved through the header and its
 * directory once per snapshot, on the first block-form launch over it, and kept with it, so a
 * repeated launch reads only the elements), every chunk below the length, in index order.
 *
 * <p><b>Split and reductions.</b> {@link io.snode.codegen.internal.structfor.LaunchSplit} cuts
 * the snapshot's blocks in halves by active cells down to a grain, and runs the ranges on the
 * calling thread, in order with parallelism 1, and above that with helpers of a fork/join pool
 * claiming ranges beside it ({@code io.snode.gc.internal.TaskRunner}, which the collector and the
 * split walk use too). The cut depends only on
 * the snapshot, and the partial results combine in the same tree either way; kernels per task,
 * block reducers and {@link io.snode.codegen.internal.structfor.Reductions} (sum, min, max,
 * count) all run on it, so their results, floating-point sums included, are the same whatever
 * the parallelism. {@link io.snode.codegen.internal.structfor.StructFor} holds a runtime's
 * launches and the rules they run under (phase lock, counting their own deactivations, the
 * collection after them, close).
 */
package io.snode.codegen.internal.structfor;
