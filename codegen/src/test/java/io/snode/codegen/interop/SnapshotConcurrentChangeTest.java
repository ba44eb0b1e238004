package io.snode.codegen.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.internal.snapshot.SnapshotWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another thread that activates, appends or deactivates while a snapshot is written (against the
 * rule that nothing may change the runtime meanwhile) makes the write fail with
 * {@link ConcurrentModificationException} before its END section, so that every read refuses the
 * file. Until 12-06 such a write completed: the file read back as a mix of two states, here the
 * state before the change (a cell activated during the write missing, or one deactivated
 * during it still there) with no sign of it. The change is made while the writer waits in its
 * first write to the file, after it wrote the sparse SNodes' sections.
 */
class SnapshotConcurrentChangeTest {
    /** The sparse SNodes come first (ids 1 and 2); the dense one's block (16 MiB) is larger than the writer's buffer. */
    private static final Layout LAYOUT = Layout.parse("pointer(i,64).bitmasked(i,64).place(f32 sparse); "
            + "dense(i,4194304).place(f32 big)");

    @TempDir
    Path directory;

    @Test
    void aCellActivatedDuringTheWriteFailsItAndTheFileIsRefused() throws Exception {
        writeWhileChanging(runtime -> runtime.generic().setFloat("sparse", 7f, 1000), true);
    }

    @Test
    void aCellDeactivatedDuringTheWriteFailsItAndTheFileIsRefused() throws Exception {
        writeWhileChanging(runtime -> runtime.deactivate(sparse(runtime), 10), true);
    }

    /**
     * Deactivations that find their cells inactive change nothing, so the write completes (until
     * 12-06 they advanced the epoch and failed it): a clear bit of the active leaf, and an
     * inactive pointer cell.
     */
    @Test
    void deactivationsThatFindTheirCellsInactiveLetTheWriteComplete() throws Exception {
        writeWhileChanging(runtime -> {
            assertThat(runtime.deactivate(sparse(runtime), 11)).isFalse();
            assertThat(runtime.deactivate(sparse(runtime).parent(), 40)).isFalse();
        }, false);
    }

    /**
     * A {@code deactivateAll} that finds nothing to release changes nothing, so the write
     * completes (until 12-07 it advanced the epoch and failed it): here on the dense node, which
     * has no sparse node below it. On the sparse leaf, whose cell 10 is active, it is a change
     * (the next test).
     */
    @Test
    void deactivateAllThatFindsNothingLetsTheWriteComplete() throws Exception {
        writeWhileChanging(runtime -> runtime.deactivateAll(runtime.layout().field("big").snode()), false);
    }

    @Test
    void deactivateAllThatFindsACellFailsTheWrite() throws Exception {
        writeWhileChanging(runtime -> runtime.deactivateAll(sparse(runtime)), true);
    }

    @Test
    void aWriteDuringWhichNothingChangesCompletesAndReadsBackEqual() throws Exception {
        writeWhileChanging(runtime -> runtime.generic().getFloat("sparse", 10), false);
    }

    /**
     * Snapshots written through the public call while another thread activates cells 0, 1, 2, ...
     * in order (value n + 1 in cell n), in a burst that every other write starts after and that
     * lasts until the write returns:
     * each write either fails with {@link ConcurrentModificationException}, or its file reads back
     * as the first k cells for some k, nothing else (on the old code a write that overlapped a
     * burst completed, and its file could hold leaf records under pointer cells its pointer
     * record did not have, which every read refused).
     */
    @Test
    void everyWriteThatCompletesWhileAnotherThreadActivatesReadsBackAsAPrefix() throws Exception {
        Layout layout = Layout.parse("pointer(i,65536).bitmasked(i,16).place(f32 a)");
        Path file = directory.resolve("racing.snap");
        ExecutorService mutator = Executors.newSingleThreadExecutor();
        Semaphore go = new Semaphore(0);
        Semaphore burstStarted = new Semaphore(0);
        Semaphore burstDone = new Semaphore(0);
        int rounds = 80;
        int cells = 1 << 20;
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean();
        int completed = 0;
        int refused = 0;
        int overlapped = 0;
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            Future<?> activations = mutator.submit(() -> {
                int n = 0;
                for (int round = 0; round < rounds; round++) {
                    int first = n;
                    if (!go.tryAcquire(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("the writer did not start round " + round);
                    }
                    if (round % 2 == 1) {
                        int limit = first + cells / (rounds / 2); // the bursts' share of the index space
                        do { // until the write has returned, or the share is used
                            runtime.generic().setFloat("a", n + 1, n);
                            n++;
                            if (n == first + 1) {
                                burstStarted.release();
                            }
                        } while (writing.get() && n < limit);
                    }
                    burstDone.release();
                }
                return null;
            });
            for (int round = 0; round < rounds; round++) {
                writing.set(true);
                go.release();
                if (round % 2 == 1) { // the write starts once the burst has
                    assertThat(burstStarted.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
                }
                boolean written;
                try {
                    Snapshots.write(runtime, file);
                    written = true;
                } catch (ConcurrentModificationException expected) {
                    written = false;
                } finally {
                    writing.set(false);
                }
                assertThat(burstDone.tryAcquire(30, TimeUnit.SECONDS)).as("round %d's burst ended", round).isTrue();
                if (round % 2 == 1) {
                    overlapped += written ? 1 : 0;
                }
                if (!written) {
                    refused++;
                    assertThat(round % 2).as("a write with no change beside it completes").isOne();
                    continue;
                }
                completed++;
                try (SNodeRuntime copy = Snapshots.read(file)) {
                    // Exactly cells 0..k-1, each holding n + 1 but the newest, which may still hold 0
                    // (a write in progress): k active cells, cell k - 1 among them, values at most k,
                    // summing to those of 0..k-1 or of 0..k-2; any other k cells fail one of these.
                    long k = copy.count("a");
                    double allK = k * (k + 1) / 2.0;
                    double lastZero = (k - 1) * k / 2.0;
                    assertThat(copy.sum("a")).as("the sum of a file of %d cells", k).isIn(allK, lastZero);
                    if (k > 0) {
                        assertThat(copy.max("a")).as("the largest value of a file of %d cells", k)
                                .isIn((double) k, (double) (k - 1));
                        assertThat(copy.generic().isActive(copy.layout().field("a").snode(), (int) k - 1))
                                .as("cell %d of a file of %d cells", k - 1, k).isTrue();
                    }
                }
            }
            activations.get(30, TimeUnit.SECONDS);
        } finally {
            mutator.shutdownNow();
            assertThat(mutator.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        System.out.printf("snapshots written beside bursts of activations: %d completed (%d with a burst), %d refused%n",
                completed, overlapped, refused);
        assertThat(completed).as("the rounds without a burst").isGreaterThanOrEqualTo(rounds / 2);
    }

    /**
     * A load sets a bitmasked container's bits with whole-word ORs of its own: they count as
     * activations (until 12-06 they did not, so a write of the same runtime overlapping a
     * {@code readInto} whose records lie below dense SNodes only saw no change; a launch's
     * snapshot was saved by the epoch the load advances at its end).
     */
    @Test
    void aLoadsActivationsCountAsActivations() throws Exception {
        Layout layout = Layout.parse("dense(i,4).bitmasked(i,64).place(f32 x)");
        Path file = directory.resolve("below-dense.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            runtime.generic().setFloat("x", 3f, 70);
            Snapshots.write(runtime, file);
        }
        try (SNodeRuntime empty = SNodeRuntime.compile(layout)) {
            var tree = empty.generic().internalTree();
            long before = tree.activationStamp();
            Snapshots.readInto(file, empty);
            assertThat(empty.generic().getFloat("x", 70)).isEqualTo(3f);
            assertThat(tree.activationStamp()).as("the activation stamp after the load").isNotEqualTo(before);
        }
    }

    private void writeWhileChanging(Consumer<SNodeRuntime> change, boolean changes) throws Exception {
        Path file = directory.resolve("changed.snap");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT);
             GatedChannel channel = new GatedChannel(FileChannel.open(file, StandardOpenOption.CREATE,
                     StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))) {
            runtime.generic().setFloat("sparse", 1f, 10);
            runtime.generic().setFloat("big", 2f, 4_000_000);
            // As Snapshots.write does: the writer inside a launch of the runtime's phase lock.
            Future<Long> written = writer.submit(() -> runtime.phaseLock().supplyLaunch(() -> {
                try {
                    return SnapshotWriter.write(runtime.generic().internalTree(), LAYOUT, channel);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }));
            assertThat(channel.firstWrite.await(30, TimeUnit.SECONDS)).as("the writer reached its first write").isTrue();
            change.accept(runtime);
            channel.release.countDown();
            if (changes) {
                assertThatThrownBy(() -> written.get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(ConcurrentModificationException.class)
                        .hasMessageContaining("changed while its snapshot was written");
                assertThatThrownBy(() -> Snapshots.read(file).close())
                        .as("a file whose write failed is refused by every read")
                        .isInstanceOf(SnapshotException.class);
            } else {
                assertThat(written.get(30, TimeUnit.SECONDS)).isPositive();
                try (SNodeRuntime copy = Snapshots.read(file)) {
                    assertThat(copy.generic().getFloat("sparse", 10)).isEqualTo(1f);
                    assertThat(copy.generic().getFloat("big", 4_000_000)).isEqualTo(2f);
                    assertThat(copy.count("sparse")).isEqualTo(1);
                }
            }
        } finally {
            writer.shutdownNow();
            assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static SNode sparse(SNodeRuntime runtime) {
        return runtime.layout().field("sparse").snode();
    }

    /** A file channel whose first write waits until {@link #release}, after counting {@link #firstWrite} down. */
    private static final class GatedChannel extends FileChannel {
        final CountDownLatch firstWrite = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final FileChannel file;

        GatedChannel(FileChannel file) {
            this.file = file;
        }

        @Override
        public int write(ByteBuffer source) throws IOException {
            if (firstWrite.getCount() > 0) {
                firstWrite.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the test did not release the write");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            return file.write(source);
        }

        @Override
        public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
            throw new UnsupportedOperationException("the writer writes one buffer at a time");
        }

        @Override
        public int write(ByteBuffer source, long position) throws IOException {
            throw new UnsupportedOperationException("the writer writes in order");
        }

        @Override
        public int read(ByteBuffer target) throws IOException {
            return file.read(target);
        }

        @Override
        public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
            return file.read(targets, offset, length);
        }

        @Override
        public int read(ByteBuffer target, long position) throws IOException {
            return file.read(target, position);
        }

        @Override
        public long position() throws IOException {
            return file.position();
        }

        @Override
        public FileChannel position(long position) throws IOException {
            file.position(position);
            return this;
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            file.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            file.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return file.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel source, long position, long count) throws IOException {
            return file.transferFrom(source, position, count);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            throw new UnsupportedOperationException("not mapped");
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return file.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return file.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            file.close();
        }
    }
}
