package io.snode.codegen.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel3;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The README's quick start compiles (it is this file's code) and does what the README says. */
@Tag("scalar-fallback")
class QuickStartTest {

    // README quick start, begin
    public interface Grid {
        float phi(int i, int j, int k);
        void phi(int i, int j, int k, float value);
    }

    static double quickStart() {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            Grid grid = runtime.bind(Grid.class);               // generated code, inlined calls
            grid.phi(1000, 7, 1029, 2.5f);                      // activates the blocks on the path
            runtime.forEach("phi", (Kernel3) (i, j, k) ->       // every active cell, in parallel
                    grid.phi(i, j, k, grid.phi(i, j, k) * 2));
            return runtime.sum("phi");                          // 5.0; inactive cells read 0
        }
    }
    // README quick start, end

    @Test
    void theQuickStartRuns() {
        assertThat(quickStart()).isEqualTo(5.0);
    }

    @Test
    void theReadmeShowsThisCode() throws Exception {
        Path readme = Path.of("..", "README.md");
        String text = Files.readString(readme);
        String source = Files.readString(Path.of("src/test/java/io/snode/codegen/readme/QuickStartTest.java"));
        String example = source.substring(source.indexOf("// README quick start, begin") + 29,
                source.indexOf("    // README quick start, end"));
        for (String line : example.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            assertThat(text).as("README.md contains the quick start line").contains(line);
        }
    }
}
