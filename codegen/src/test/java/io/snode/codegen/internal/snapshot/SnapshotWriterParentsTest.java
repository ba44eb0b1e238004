package io.snode.codegen.internal.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.SnapshotException;
import io.snode.codegen.interop.Snapshots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ConcurrentModificationException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer checks each record's parent cell against the records it wrote before, as every
 * reader does: a cell activated by another thread between the walk of a pointer SNode and the
 * walk of its children (an activation whose count the writer's final stamp may not see yet,
 * review of 12-06) ends the write there with {@link ConcurrentModificationException} instead
 * of completing a file that every read refuses ("its parent cell ... is not active"). Here the
 * activation is made between the two SNodes' walks, deterministically; the structural check
 * fires at the first child record, before the stamps are compared at the end.
 */
class SnapshotWriterParentsTest {
    private static final Layout LAYOUT = Layout.parse("pointer(i,64).bitmasked(i,64).place(f32 v)");

    @TempDir
    Path directory;

    @Test
    void aChildRecordWhoseParentWasNotWrittenActiveEndsTheWrite() throws Exception {
        Path file = directory.resolve("parents.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            runtime.generic().setFloat("v", 1f, 5);
            SNode pointer = LAYOUT.field("v").snode().parent();
            Consumer<SNode> activateAfterThePointer = snode -> {
                if (snode == pointer) {
                    runtime.generic().setFloat("v", 2f, 64 * 30 + 7); // a new pointer cell and leaf cell
                }
            };
            assertThatThrownBy(() -> write(runtime, file, activateAfterThePointer))
                    .isInstanceOf(ConcurrentModificationException.class)
                    .hasMessageContaining("lies in cell [30] of root/pointer(i,64), which was not active when that"
                            + " SNode was written");
            assertThatThrownBy(() -> Snapshots.read(file).close()).isInstanceOf(SnapshotException.class);
        }
    }

    @Test
    void withNothingChangedBetweenTheWalksTheWriteCompletesAndReadsBackEqual() throws Exception {
        Path file = directory.resolve("same.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(LAYOUT)) {
            runtime.generic().setFloat("v", 1f, 5);
            runtime.generic().setFloat("v", 2f, 64 * 30 + 7);
            assertThat(write(runtime, file, snode -> { })).isPositive();
            try (SNodeRuntime copy = Snapshots.read(file)) {
                assertThat(copy.generic().getFloat("v", 5)).isEqualTo(1f);
                assertThat(copy.generic().getFloat("v", 64 * 30 + 7)).isEqualTo(2f);
                assertThat(copy.count("v")).isEqualTo(2);
            }
        }
    }

    /**
     * A parent cell deactivated between the pointer's walk and its dense children's: the file
     * would have a dense block record fewer than the pointer's active cells, which the reader
     * counts at the END section; the writer counts the same (review of 12-06, second round).
     */
    @Test
    void aDenseChildOfAParentCellDeactivatedBetweenTheWalksEndsTheWriteByItsCount() throws Exception {
        Layout layout = Layout.parse("pointer(i,64).dense(i,8).place(f32 v)");
        Path file = directory.resolve("dense.snap");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            runtime.generic().setFloat("v", 1f, 5);
            runtime.generic().setFloat("v", 1f, 8 * 30 + 1);
            SNode pointer = layout.field("v").snode().parent();
            Consumer<SNode> deactivateAfterThePointer = snode -> {
                if (snode == pointer) {
                    runtime.generic().deactivate(pointer, 30);
                }
            };
            assertThatThrownBy(() -> write(runtime, file, deactivateAfterThePointer))
                    .isInstanceOf(ConcurrentModificationException.class)
                    .hasMessageContaining("1 blocks of root/pointer(i,64)/dense(i,8) written for 2 active cells");
            assertThatThrownBy(() -> Snapshots.read(file).close()).isInstanceOf(SnapshotException.class);
        }
    }

    /** Writes {@code runtime}'s snapshot to {@code file} as {@code Snapshots.write} does (in a launch), calling {@code afterEach} after each SNode. */
    private static long write(SNodeRuntime runtime, Path file, Consumer<SNode> afterEach) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            return runtime.phaseLock().supplyLaunch(() -> {
                try {
                    return SnapshotWriter.write(runtime.generic().internalTree(), runtime.layout(), channel, afterEach);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
