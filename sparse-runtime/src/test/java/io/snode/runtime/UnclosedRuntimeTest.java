package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.runtime.internal.UnclosedRuntimes;
import io.snode.runtime.testing.LogCapture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A runtime that becomes unreachable without {@code close()} keeps its memory until the JVM exits
 * (its bound interfaces may still use it); until 12-06 nothing said so, and a program that
 * dropped runtimes in a loop ran out of address space with no hint of where they came from. Now
 * each is reported once, with the memory it holds and where it was created; closed runtimes never are.
 */
class UnclosedRuntimeTest {
    private static final Layout LAYOUT = Layout.parse("pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");

    @Test
    void aRuntimeDroppedUnclosedIsReportedOnceWithWhatItHoldsAndWhereItWasCreated() {
        // The report comes when the library is used again: here a runtime created and closed after each collection.
        try (LogCapture log = new LogCapture(UnclosedRuntimes.LOGGER)
                .afterEachCollection(() -> SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT, "user").close())) {
            String label = "dropped" + System.nanoTime();
            long committed = dropUnclosed(label);
            LogRecord record = log.collectUntilLogged(label + " of layout");
            assertThat(record.getLevel()).isEqualTo(Level.WARNING);
            assertThat(record.getMessage()).contains("SNode runtime " + label + " of layout " + LAYOUT,
                    "without close()", " " + committed + " bytes of off-heap memory", "try-with-resources");
            assertThat(record.getThrown()).isNotNull();
            assertThat(Arrays.stream(record.getThrown().getStackTrace()).map(StackTraceElement::getMethodName))
                    .as("the record's exception shows where the runtime was created")
                    .contains("dropUnclosed");
            assertThat(record.getThrown().getStackTrace()[0].toString())
                    .as("the trace starts at the library's entry point, not inside its watch")
                    .startsWith(SparseRuntime.class.getName() + ".create(");
            // A second runtime dropped later is reported too, and the first is not reported again.
            String next = "droppedNext" + System.nanoTime();
            dropUnclosed(next);
            log.collectUntilLogged(next + " of layout");
            assertThat(log.recordsContaining(label + " of layout")).hasSize(1);
        }
    }

    @Test
    void closedRuntimesAreNeverReported() {
        try (LogCapture log = new LogCapture(UnclosedRuntimes.LOGGER).afterEachCollection(UnclosedRuntimes::report)) {
            String prefix = "closed" + System.nanoTime() + "-";
            List<String> closed = new ArrayList<>();
            for (int n = 0; n < 20; n++) {
                String label = prefix + n;
                SparseRuntime runtime = SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT, label);
                if (n % 2 == 0) {
                    runtime.setFloat("phi", 1f, n, n, n);
                }
                runtime.close();
                if (n % 5 == 0) {
                    runtime.close(); // closing twice changes nothing
                }
                closed.add(label);
            }
            // A runtime dropped after them: once it is reported, the closed ones were unreachable
            // through at least as many collections.
            String sentinel = "sentinel" + System.nanoTime();
            dropUnclosed(sentinel);
            log.collectUntilLogged(sentinel + " of layout");
            assertThat(log.recordsContaining(prefix)).as("closed runtimes are not reported").isEmpty();
        }
    }

    /**
     * A program that drops runtimes in a loop: each is reported, with its number, where it was
     * created and what it holds, but only the first {@value UnclosedRuntimes#WARNED} and each
     * power of two as WARNING, the others as DEBUG (so the log grows with the logarithm of the
     * leaks).
     */
    @Test
    void runtimesDroppedInALoopWarnForTheFirstSixteenAndEachPowerOfTwoAndAreDebugOtherwise() {
        try (LogCapture log = new LogCapture(UnclosedRuntimes.LOGGER).afterEachCollection(UnclosedRuntimes::report).everyLevel()) {
            String prefix = "loop" + System.nanoTime() + "-";
            int dropped = 40;
            for (int n = 0; n < dropped; n++) {
                dropUnclosed(prefix + n);
            }
            List<LogRecord> records = log.collectUntilLogged(prefix, dropped);
            assertThat(records).hasSize(dropped);
            java.util.regex.Pattern number = java.util.regex.Pattern.compile("unclosed runtime (\\d+) of");
            java.util.Set<Long> numbers = new java.util.HashSet<>();
            for (LogRecord record : records) {
                java.util.regex.Matcher matcher = number.matcher(record.getMessage());
                assertThat(matcher.find()).as(record.getMessage()).isTrue();
                long n = Long.parseLong(matcher.group(1));
                numbers.add(n);
                boolean warned = n <= UnclosedRuntimes.WARNED || Long.bitCount(n) == 1;
                assertThat(record.getLevel()).as("report %d", n).isEqualTo(warned ? Level.WARNING : Level.FINE);
                assertThat(record.getThrown()).as("report %d says where its runtime was created", n).isNotNull();
            }
            assertThat(numbers).as("each report has a number of its own").hasSize(dropped);
        }
    }

    /**
     * A logging handler that throws an {@link Error} while another runtime's report is written,
     * during a {@code close()}: the error reaches the caller, after the closed runtime's memory
     * was freed (until the second review of 12-06 the report came first, and the memory of the
     * runtime being closed was never freed).
     */
    @Test
    void aLoggerThatThrowsAnErrorDuringCloseLeavesTheClosedRuntimesMemoryFreed() {
        java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();
        io.snode.runtime.internal.memory.MemoryAllocator counting = new io.snode.runtime.internal.memory.MemoryAllocator() {
            private final io.snode.runtime.internal.memory.MemoryAllocator real =
                    io.snode.runtime.internal.memory.MemoryAllocator.arenaPerChunk();

            @Override
            public java.lang.foreign.MemorySegment allocate(long byteSize, long byteAlignment) {
                java.lang.foreign.MemorySegment segment = real.allocate(byteSize, byteAlignment);
                held.addAndGet(segment.byteSize());
                return segment;
            }

            @Override
            public void free(java.lang.foreign.MemorySegment segment) {
                held.addAndGet(-segment.byteSize());
                real.free(segment);
            }
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(UnclosedRuntimes.LOGGER);
        // Until a close() reports a runtime dropped just before it (the collector and the
        // reference handler decide when): the handler throws only for that runtime, only then.
        for (int attempt = 0; attempt < 20; attempt++) {
            SparseRuntime closing = SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT.withAllocator(counting),
                    "closing" + attempt);
            closing.setFloat("phi", 1f, 1, 2, 3);
            assertThat(held.get()).isPositive();
            String label = "throwing" + System.nanoTime();
            dropUnclosed(label);
            for (int n = 0; n < 3; n++) {
                LogCapture.collectAndAwaitReferenceHandling();
            }
            java.util.logging.Handler throwing = new java.util.logging.Handler() {
                @Override
                public void publish(LogRecord record) {
                    if (record.getMessage().contains(label)) {
                        throw new AssertionError("a handler that fails");
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            logger.addHandler(throwing);
            Throwable thrown;
            try {
                thrown = org.assertj.core.api.Assertions.catchThrowable(closing::close);
            } finally {
                logger.removeHandler(throwing);
            }
            assertThat(closing.isClosed()).isTrue();
            assertThat(held.get()).as("bytes the closed runtime still holds").isZero();
            if (thrown != null) {
                assertThat(thrown).isInstanceOf(AssertionError.class).hasMessage("a handler that fails");
                return;
            }
        }
        throw new AssertionError("no close() reported the runtime dropped before it in 20 attempts");
    }

    /** Creates a runtime labelled {@code label}, writes a cell and drops it; the bytes it had committed. */
    private static long dropUnclosed(String label) {
        SparseRuntime runtime = SparseRuntime.create(LAYOUT, RuntimeOptions.DEFAULT, label);
        runtime.setFloat("phi", 2.5f, 3, 4, 5);
        long committed = runtime.memoryStats().bytesCommitted();
        assertThat(committed).isPositive();
        return committed;
    }
}
