package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Another thread changes the coordinate array a caller passes to the generic path while the call
 * runs: the call uses the coordinates it checked, never a changed one outside the index space.
 * Until 12-07 the generic calls checked the caller's array and then walked with it, so a
 * coordinate changed between the two went through: -1 into a bitmasked container reached in
 * front of its cells (its mask words).
 */
class ChangedArgumentsTest {
    private static final java.lang.invoke.VarHandle ELEMENT = java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);

    @Test
    void aCoordinateArrayChangedDuringGenericCallsNeverReachesOutsideTheIndexSpace() throws Exception {
        Layout layout = Layout.parse("pointer(i,3).bitmasked(i,3).place(i32 v)");
        try (SparseRuntime runtime = SparseRuntime.create(layout, RuntimeOptions.DEFAULT)) {
            PlacedField v = layout.field("v");
            SNode cells = v.snode();
            int[] shared = {4};
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            Thread changer = Thread.ofPlatform().start(() -> {
                started.countDown();
                while (!stop.get()) {
                    ELEMENT.setOpaque(shared, 0, -1); // opaque: the JIT keeps both writes
                    ELEMENT.setOpaque(shared, 0, 4);
                }
            });
            try {
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                int refused = 0;
                int written = 0;
                // At least 200,000 rounds, and on until both outcomes were seen (the changing thread
                // may be descheduled for a while on a loaded machine), at most 20 s.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int n = 0; n < 200_000 || (refused == 0 || written == 0) && System.nanoTime() < deadline; n++) {
                    try {
                        runtime.writeBits(v, 7, shared);
                        written++;
                        runtime.isActive(cells, shared);
                        runtime.activate(cells, shared);
                    } catch (IndexOutOfBoundsException outside) {
                        refused++; // the check saw -1: refused, nothing changed
                    }
                }
                assertThat(refused).as("the race was exercised").isPositive();
                assertThat(written).isPositive();
            } finally {
                stop.set(true);
                changer.join(10_000);
            }
            // Only cell 4 was ever written or activated: one active cell, nothing in front of the cells.
            for (int i = 0; i < 9; i++) {
                assertThat(runtime.isActive(cells, i)).as("cell %d", i).isEqualTo(i == 4);
            }
            assertThat(runtime.getInt("v", 4)).isEqualTo(7);
        }
    }
}
