package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import io.snode.runtime.internal.memory.MemoryAllocator;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A failed activation, at any level and for any reason, leaves the structure as it was. */
class FailureAtomicityTest {

    /** An allocator that fails its Nth request from now on, counting from 1. */
    static final class FailingAllocator implements MemoryAllocator {
        final MemoryAllocator real = MemoryAllocator.arenaPerChunk();
        final AtomicInteger countdown = new AtomicInteger(Integer.MAX_VALUE);

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            if (countdown.decrementAndGet() == 0) {
                throw new OutOfMemoryError("injected failure");
            }
            return real.allocate(byteSize, byteAlignment);
        }

        @Override
        public void free(MemorySegment segment) {
            real.free(segment);
        }
    }

    @Test
    void capExceededInTheMiddleOfAPathChangesNothing() {
        Layout layout = Layout.parse(PlanTest.L1);
        long outerOnly;
        try (SparseRuntime probe = SparseRuntime.create(layout)) {
            probe.activate(layout.snode(1), 0, 0, 0);
            outerOnly = probe.memoryStats().bytesReserved();
        }
        // The root and the outer level fit under the cap; the inner level's first chunk does not.
        try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withMemoryCap(outerOnly + 1))) {
            MemoryStats before = rt.memoryStats();
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> rt.setFloat("phi", 1f, 5, 6, 7));
            assertThat(thrown).isInstanceOf(MemoryCapExceededException.class);
            MemoryCapExceededException cap = (MemoryCapExceededException) thrown;
            assertThat(cap.capBytes()).isEqualTo(outerOnly + 1);
            assertThat(cap.ownerName()).isEqualTo("root/pointer(ijk,16)/pointer(ijk,16)");
            assertUnchanged(rt, before);
            assertThat(rt.isActive(layout.snode(1), 0, 0, 0)).isFalse();
            assertThat(rt.getFloat("phi", 5, 6, 7)).isZero();
            // The outer level alone still fits, so the structure is usable afterwards.
            rt.activate(layout.snode(1), 0, 0, 0);
            assertThat(rt.isActive(layout.snode(1), 0, 0, 0)).isTrue();
        }
    }

    @Test
    void anInjectedFailureAtAnyRequestLeavesThatOperationUndone() {
        Layout layout = Layout.parse("pointer(ij,4){ place(f32 coarse); pointer(ij,4).bitmasked(ij,4).place(f32 v);"
                + " dynamic(k,100,2).place(i32 p) }");
        SNode list = layout.snode(4);
        for (int failAt = 1; failAt <= 8; failAt++) {
            FailingAllocator allocator = new FailingAllocator();
            try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withAllocator(allocator))) {
                rt.setFloat("v", 1f, 0, 0);
                allocator.countdown.set(failAt);
                int failures = 0;
                for (int op = 0; op < 6; op++) {
                    MemoryStats before = rt.memoryStats();
                    int x = 4 + op * 2;
                    long lengthBefore = rt.length(list, 3, 3);
                    try {
                        if (op % 2 == 0) {
                            rt.setFloat("v", 2f + op, x, 15);
                        } else {
                            rt.appendInt("p", op, 3, 3);
                        }
                    } catch (OutOfMemoryError expected) {
                        failures++;
                        assertUnchanged(rt, before);
                        if (op % 2 == 0) {
                            assertThat(rt.getFloat("v", x, 15)).isZero();
                            assertThat(rt.isActive(layout.snode(3), x, 15)).isFalse();
                        } else {
                            assertThat(rt.length(list, 3, 3)).isEqualTo(lengthBefore);
                        }
                    }
                }
                assertThat(failures).isLessThanOrEqualTo(1);
                assertThat(rt.getFloat("v", 0, 0)).isEqualTo(1f);
            }
        }
    }

    @Test
    void aFullListRejectsTheAppendAndKeepsItsContents() {
        Layout layout = Layout.parse("pointer(i,2).dynamic(j,3,2).place(i32 p)");
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            SNode list = layout.snode(2);
            for (int n = 0; n < 3; n++) {
                rt.appendInt("p", n, 1);
            }
            MemoryStats before = rt.memoryStats();
            assertThatThrownBy(() -> rt.appendInt("p", 9, 1)).isInstanceOf(DynamicListFullException.class);
            assertUnchanged(rt, before);
            assertThat(rt.length(list, 1)).isEqualTo(3);
            assertThat(rt.getInt("p", 1, 2)).isEqualTo(2);
        }
    }

    /**
     * A write far into a list (its directory's top and leaf blocks and a chunk at once) that the
     * cap refuses at any of those requests changes nothing, the directory's manager included;
     * caps from the empty runtime's memory upwards until the write fits.
     */
    @Test
    void aWriteFarIntoAListThatTheCapRefusesChangesNothing() {
        Layout layout = Layout.parse("dense(i,2).dynamic(l,2147483647).place(i64 p)");
        SNode list = layout.snode(2);
        long empty;
        try (SparseRuntime probe = SparseRuntime.create(layout)) {
            empty = probe.memoryStats().bytesReserved();
        }
        int refused = 0;
        for (long cap = empty; ; cap += 1024) {
            try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withMemoryCap(cap))) {
                MemoryStats before = rt.memoryStats();
                try {
                    rt.setLong("p", 42, 1, 2_147_483_646);
                } catch (MemoryCapExceededException expected) {
                    refused++;
                    assertUnchanged(rt, before);
                    assertThat(rt.length(list, 1)).isZero();
                    continue;
                }
                assertThat(rt.getLong("p", 1, 2_147_483_646)).isEqualTo(42);
                break;
            }
        }
        assertThat(refused).isGreaterThan(3);
        // The same with an allocator fault at each of the write's requests in turn.
        int faults = 0;
        for (int failAt = 1; ; failAt++) {
            FailingAllocator allocator = new FailingAllocator();
            try (SparseRuntime rt = SparseRuntime.create(layout, RuntimeOptions.DEFAULT.withAllocator(allocator))) {
                MemoryStats before = rt.memoryStats();
                allocator.countdown.set(failAt);
                try {
                    rt.setLong("p", 42, 1, 2_147_483_646);
                } catch (OutOfMemoryError expected) {
                    faults++;
                    assertUnchanged(rt, before);
                    assertThat(rt.length(list, 1)).isZero();
                    continue;
                }
                assertThat(rt.getLong("p", 1, 2_147_483_646)).isEqualTo(42);
                break;
            }
        }
        assertThat(faults).isGreaterThanOrEqualTo(3);
    }

    private static void assertUnchanged(SparseRuntime rt, MemoryStats before) {
        MemoryStats after = rt.memoryStats();
        assertThat(after.bytesReserved()).isEqualTo(before.bytesReserved());
        for (MemoryStats.SNodeStats stats : before.snodes()) {
            MemoryStats.SNodeStats now = after.of(stats.snode());
            assertThat(now.cells().cellsInUse()).as(stats.snode().path()).isEqualTo(stats.cells().cellsInUse());
            assertThat(now.cells().cellsAllocated()).as(stats.snode().path())
                    .isEqualTo(stats.cells().cellsAllocated());
            assertThat(now.cells().chunks()).isEqualTo(stats.cells().chunks());
            assertThat(now.directories()).as(stats.snode().path() + " directories").isEqualTo(stats.directories());
        }
    }
}
