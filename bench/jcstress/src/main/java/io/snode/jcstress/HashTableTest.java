package io.snode.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;

import io.snode.api.SNode;
import io.snode.runtime.SparseRuntime;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * The hash node's protocol (see {@code HashUnit}): insertions into one container under its
 * lock, a resize that copies the live entries into a reserved table while readers probe the
 * old one without a lock, and a deactivation that shrinks a large table the same way. Layout {@code hash(i,100000).place(i32 v)}: every cell of the hash
 * node is one entry of the root's table.
 */
public final class HashTableTest {
    static final RuntimePool POOL = new RuntimePool("hash(i,100000).place(i32 v)");
    static final SNode HASH = POOL.layout().snode(1);

    private HashTableTest() {
    }

    private static int live(SparseRuntime runtime) {
        return (int) runtime.memoryStats().of(HASH).tables().liveEntries();
    }

    /** Two threads insert different cells into a container that has no table yet: both create it. */
    @JCStressTest
    @Outcome(id = "1, 2, 2, 2, 0", expect = ACCEPTABLE,
            desc = "Both writes kept; two cells in use and two live entries; nothing left after reset.")
    @State
    public static class InsertionRacingInsertion {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void insertFirst(IIIII_Result r) {
            try {
                runtime.setInt("v", 1, 11);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("insertFirst", e);
            }
        }

        @Actor
        public void insertSecond(IIIII_Result r) {
            try {
                runtime.setInt("v", 2, 77_777);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("insertSecond", e);
            }
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                if (r.r1 == 0) {
                    r.r1 = runtime.getInt("v", 11);
                }
                if (r.r2 == 0) {
                    r.r2 = runtime.getInt("v", 77_777);
                }
                r.r3 = RuntimePool.cellsInUse(runtime, HASH);
                r.r4 = live(runtime);
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /** Two threads add 1 to the same fresh cell: one entry, one cell, both adds counted. */
    @JCStressTest
    @Outcome(id = "0, 1, 2, 1, 0", expect = ACCEPTABLE, desc = "The first add saw 0, the second 1.")
    @Outcome(id = "1, 0, 2, 1, 0", expect = ACCEPTABLE, desc = "The second add saw 0, the first 1.")
    @State
    public static class SameCellInsertions {
        final SparseRuntime runtime = POOL.take();

        @Actor
        public void addFirst(IIIII_Result r) {
            try {
                r.r1 = runtime.addInt("v", 1, 4242);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("addFirst", e);
            }
        }

        @Actor
        public void addSecond(IIIII_Result r) {
            try {
                r.r2 = runtime.addInt("v", 1, 4242);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("addSecond", e);
            }
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                r.r3 = runtime.getInt("v", 4242);
                r.r4 = RuntimePool.cellsInUse(runtime, HASH);
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /**
     * A deactivation of a cell that is not in the table yet races that cell's insertion, which
     * resizes the table (it is at its load bound). The deactivation looks for the key without
     * the lock first and returns at once when it finds none (nothing changes then, not even the
     * epoch): either it found nothing and the insertion stays, or it found the entry and
     * removed it. Never a value left under a deactivation that reported the cell active, nor a
     * lost entry count.
     */
    @JCStressTest
    @Outcome(id = "0, 5, 9, 64, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (found nothing), then the insertion: it stays; nine live entries.")
    @Outcome(id = "1, 0, 8, 64, 0", expect = ACCEPTABLE,
            desc = "The insertion first, then the deactivation: the entry is gone; eight live entries.")
    @State
    public static class DeactivationRacingTheSameCellsInsertion {
        final SparseRuntime runtime = POOL.take();

        public DeactivationRacingTheSameCellsInsertion() {
            fillToTheLoadBound(runtime);
        }

        @Actor
        public void insert(IIIII_Result r) {
            insertTheRacedCell(runtime, r);
        }

        @Actor
        public void deactivate(IIIII_Result r) {
            deactivateTheRacedCell(runtime, r);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            checkTheRacedCell(runtime, r);
        }
    }

    /**
     * The same race on a cell deactivated before, whose key the table keeps with a null word (a
     * tombstone): the deactivation finds the null word without the lock and returns at once, or
     * finds the insertion's entry and removes it. Seven other entries and the tombstone fill a
     * table of 16 to its load bound, so the insertion, which reuses the tombstone's slot, needs no
     * resize.
     */
    @JCStressTest
    @Outcome(id = "0, 5, 8, 16, 0", expect = ACCEPTABLE,
            desc = "The deactivation first (found the tombstone), then the insertion: it stays; eight live entries.")
    @Outcome(id = "1, 0, 7, 16, 0", expect = ACCEPTABLE,
            desc = "The insertion first, then the deactivation: the entry is gone again; seven live entries.")
    @State
    public static class DeactivationRacingTheReinsertionOfATombstone {
        final SparseRuntime runtime = POOL.take();

        public DeactivationRacingTheReinsertionOfATombstone() {
            for (int n = 0; n < 7; n++) {
                runtime.setInt("v", 1000 + n, n * 1009);
            }
            runtime.setInt("v", 9, RACED);
            runtime.deactivate(HASH, RACED);
        }

        @Actor
        public void insert(IIIII_Result r) {
            insertTheRacedCell(runtime, r);
        }

        @Actor
        public void deactivate(IIIII_Result r) {
            deactivateTheRacedCell(runtime, r);
        }

        @Arbiter
        public void check(IIIII_Result r) {
            checkTheRacedCell(runtime, r);
        }
    }

    /** The cell the deactivation races: its insertion with value 5 (r2: 0, or the failure). */
    private static void insertTheRacedCell(SparseRuntime runtime, IIIII_Result r) {
        try {
            runtime.setInt("v", 5, RACED);
        } catch (RuntimeException | Error e) {
            r.r2 = Unexpected.report("insert", e);
        }
    }

    /** r1: 1 when the deactivation found the cell active, 0 when not, or the failure. */
    private static void deactivateTheRacedCell(SparseRuntime runtime, IIIII_Result r) {
        try {
            r.r1 = runtime.deactivate(HASH, RACED) ? 1 : 0;
        } catch (RuntimeException | Error e) {
            r.r1 = Unexpected.report("deactivate", e);
        }
    }

    /** r2 the raced cell's value (unless the insertion failed), r3 live entries, r4 the table's entries, r5 the reset. */
    private static void checkTheRacedCell(SparseRuntime runtime, IIIII_Result r) {
        try {
            if (r.r2 == 0) {
                r.r2 = runtime.getInt("v", RACED);
            }
            r.r3 = live(runtime);
            r.r4 = (int) runtime.memoryStats().of(HASH).tables().entries();
        } catch (RuntimeException | Error e) {
            r.r3 = Unexpected.report("check", e);
        }
        r.r5 = POOL.reset(runtime);
    }

    /** The cell whose deactivation races its insertion in the two tests above. */
    private static final int RACED = 31_337;

    /** Eight entries in a table of 16: the most it may hold, so the next new cell needs a larger table. */
    static void fillToTheLoadBound(SparseRuntime runtime) {
        for (int n = 0; n < 8; n++) {
            runtime.setInt("v", n == 3 ? 42 : 1000 + n, n * 1009);
        }
    }

    /**
     * The table is at its load bound: an insertion resizes it (copies the live entries into a
     * reserved table of 64 and publishes it) while a reader probes for an entry that was there
     * before. The reader sees that entry's value in the old table or the new one, never 0 (a
     * half-copied table).
     */
    @JCStressTest
    @Outcome(id = "1, 42, 9, 64, 0", expect = ACCEPTABLE,
            desc = "The insertion kept, the old entry read through the resize; nine live entries in a table of 64.")
    @State
    public static class ResizeAgainstAReader {
        final SparseRuntime runtime = POOL.take();

        public ResizeAgainstAReader() {
            fillToTheLoadBound(runtime);
        }

        @Actor
        public void insert(IIIII_Result r) {
            try {
                runtime.setInt("v", 1, 50_001);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("insert", e);
            }
        }

        @Actor
        public void read(IIIII_Result r) {
            try {
                r.r2 = runtime.getInt("v", 3 * 1009);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("read", e);
            }
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                if (r.r1 == 0) {
                    r.r1 = runtime.getInt("v", 50_001);
                }
                r.r3 = live(runtime);
                r.r4 = (int) runtime.memoryStats().of(HASH).tables().entries();
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /**
     * The table is at its load bound and two threads insert new cells: both need a larger table;
     * whichever takes the header's lock first resizes, the other then inserts into the grown table
     * (or plans again for it). Both insertions and every old entry are kept.
     */
    @JCStressTest
    @Outcome(id = "1, 2, 42, 10, 64, 0", expect = ACCEPTABLE,
            desc = "Both insertions and the old entry kept; ten live entries in a table of 64.")
    @State
    public static class InsertionsRacingThroughAResize {
        final SparseRuntime runtime = POOL.take();

        public InsertionsRacingThroughAResize() {
            fillToTheLoadBound(runtime);
        }

        @Actor
        public void insertFirst(IIIIII_Result r) {
            try {
                runtime.setInt("v", 1, 50_001);
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("insertFirst", e);
            }
        }

        @Actor
        public void insertSecond(IIIIII_Result r) {
            try {
                runtime.setInt("v", 2, 50_002);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("insertSecond", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            try {
                if (r.r1 == 0) {
                    r.r1 = runtime.getInt("v", 50_001);
                }
                if (r.r2 == 0) {
                    r.r2 = runtime.getInt("v", 50_002);
                }
                r.r3 = runtime.getInt("v", 3 * 1009);
                r.r4 = live(runtime);
                r.r5 = (int) runtime.memoryStats().of(HASH).tables().entries();
            } catch (RuntimeException | Error e) {
                r.r4 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }

    /**
     * 513 entries (a table of 4096, a large one), then 256 of them deactivated: 257 live, one
     * above a sixteenth of the table, so the next deactivation shrinks it (to 1024 entries).
     */
    static void fillToTheShrinkBound(SparseRuntime runtime) {
        for (int n = 0; n < 513; n++) {
            runtime.setInt("v", n == 300 ? 42 : 1000 + n, n * 13);
        }
        for (int n = 0; n < 256; n++) {
            runtime.deactivate(HASH, n * 13);
        }
    }

    /**
     * A deactivation shrinks the table (copies the live entries into a smaller reserved table
     * and publishes it, under the header's lock) while a reader probes for an entry that was
     * there before: the reader sees that entry's value in the old table or the new one, never 0.
     * (Two actors each: jcstress runs no more actors than the machine has CPUs, two here.)
     */
    @JCStressTest
    @Outcome(id = "1, 42, 256, 1024, 0", expect = ACCEPTABLE,
            desc = "Deactivated and shrunk; the old entry read through the shrink.")
    @State
    public static class ShrinkAgainstAReader {
        final SparseRuntime runtime = POOL.take();

        public ShrinkAgainstAReader() {
            fillToTheShrinkBound(runtime);
        }

        @Actor
        public void deactivate(IIIII_Result r) {
            try {
                r.r1 = runtime.deactivate(HASH, 512 * 13) ? 1 : -1;
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("deactivate", e);
            }
        }

        @Actor
        public void read(IIIII_Result r) {
            try {
                r.r2 = runtime.getInt("v", 300 * 13);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("read", e);
            }
        }

        @Arbiter
        public void check(IIIII_Result r) {
            try {
                if (r.r1 == 1 && runtime.getInt("v", 512 * 13) != 0) {
                    r.r1 = -2; // deactivated, yet it reads its value
                }
                r.r3 = live(runtime);
                r.r4 = (int) runtime.memoryStats().of(HASH).tables().entries();
            } catch (RuntimeException | Error e) {
                r.r3 = Unexpected.report("check", e);
            }
            r.r5 = POOL.reset(runtime);
        }
    }

    /**
     * A deactivation that shrinks the table races an insertion of a new cell: the insertion
     * lands in whichever table the header names when it takes the lock. Before the
     * deactivation: 258 live, and the deactivation leaves 257, more than a sixteenth of 4096, so
     * no shrink; after it: the table of 1024 takes it.
     */
    @JCStressTest
    @Outcome(id = "1, 7, 42, 257, 1024, 0", expect = ACCEPTABLE,
            desc = "The deactivation shrank the table first; the insertion went into the table of 1024.")
    @Outcome(id = "1, 7, 42, 257, 4096, 0", expect = ACCEPTABLE,
            desc = "The insertion came first; 257 live after the deactivation, no shrink.")
    @State
    public static class ShrinkAgainstAnInsertion {
        final SparseRuntime runtime = POOL.take();

        public ShrinkAgainstAnInsertion() {
            fillToTheShrinkBound(runtime);
        }

        @Actor
        public void deactivate(IIIIII_Result r) {
            try {
                r.r1 = runtime.deactivate(HASH, 512 * 13) ? 1 : -1;
            } catch (RuntimeException | Error e) {
                r.r1 = Unexpected.report("deactivate", e);
            }
        }

        @Actor
        public void insert(IIIIII_Result r) {
            try {
                runtime.setInt("v", 7, 60_001);
            } catch (RuntimeException | Error e) {
                r.r2 = Unexpected.report("insert", e);
            }
        }

        @Arbiter
        public void check(IIIIII_Result r) {
            try {
                if (r.r1 == 1 && runtime.getInt("v", 512 * 13) != 0) {
                    r.r1 = -2; // deactivated, yet it reads its value
                }
                if (r.r2 == 0) {
                    r.r2 = runtime.getInt("v", 60_001);
                }
                r.r3 = runtime.getInt("v", 300 * 13);
                r.r4 = live(runtime);
                r.r5 = (int) runtime.memoryStats().of(HASH).tables().entries();
            } catch (RuntimeException | Error e) {
                r.r4 = Unexpected.report("check", e);
            }
            r.r6 = POOL.reset(runtime);
        }
    }
}
