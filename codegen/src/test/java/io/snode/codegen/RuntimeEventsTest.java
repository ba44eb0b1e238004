package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JFR events of two runtimes of one layout name their runtime as its {@code toString} does
 * (its layout class), from the first chunk its compilation allocates. Until 12-07 they carried
 * no runtime at all: owners and sequences of two such runtimes were the same.
 */
class RuntimeEventsTest {

    @Test
    void eachRuntimesEventsNameItsLayoutClass(@TempDir Path dir) throws Exception {
        Layout layout = Layout.parse("pointer(ijk,16).dense(ijk,4).place(f32 phi)");
        Path file = dir.resolve("events.jfr");
        String first;
        String second;
        try (Recording recording = new Recording()) {
            recording.enable("io.snode.runtime.ChunkAllocation");
            recording.enable("io.snode.gc.Collection");
            recording.enable("io.snode.gc.SNodeCollection");
            recording.start();
            try (SNodeRuntime a = SNodeRuntime.compile(layout); SNodeRuntime b = SNodeRuntime.compile(layout)) {
                first = name(a);
                second = name(b);
                for (SNodeRuntime runtime : List.of(a, b)) {
                    runtime.generic().setFloat("phi", 1f, 5, 6, 7);
                    runtime.deactivate(layout.field("phi").snode().parent(), 1, 1, 1);
                }
            }
            recording.stop();
            recording.dump(file);
        }
        assertThat(first).isNotEqualTo(second);
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        for (String type : List.of("io.snode.runtime.ChunkAllocation", "io.snode.gc.Collection",
                "io.snode.gc.SNodeCollection")) {
            Set<String> runtimes = events.stream().filter(e -> e.getEventType().getName().equals(type))
                    .map(e -> e.getString("runtime")).collect(Collectors.toSet());
            assertThat(runtimes).as(type).containsExactlyInAnyOrder(first, second);
        }
    }

    /** "Layout17" of "SNodeRuntime Layout17 of layout ...". */
    private static String name(SNodeRuntime runtime) {
        String text = runtime.toString();
        assertThat(text).startsWith("SNodeRuntime Layout");
        return text.split(" ")[1];
    }
}
