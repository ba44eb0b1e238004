package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.gc.internal.vectorization.GcKernels;
import io.snode.gc.internal.vectorization.VectorizationProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs in both Surefire executions: {@code snode.test.expectVector} says whether this JVM was
 * started with {@code jdk.incubator.vector}, so each execution proves it ran the configuration
 * it claims.
 */
class VectorizationProviderTest {

    private static final boolean EXPECT_VECTOR = Boolean.parseBoolean(
            System.getProperty("snode.test.expectVector", "true"));

    @Test
    void theModuleGraphIsTheOneThisExecutionClaims() {
        assertThat(ModuleLayer.boot().findModule(VectorizationProvider.VECTOR_MODULE).isPresent())
                .isEqualTo(EXPECT_VECTOR);
    }

    @Test
    void defaultKernelsAreVectorExactlyWhenTheModuleIsPresent() {
        GcKernels kernels = VectorizationProvider.kernels();
        assertThat(kernels.vectorized()).isEqualTo(EXPECT_VECTOR);
        assertThat(kernels.name()).startsWith(EXPECT_VECTOR ? "panama-" : "scalar");
        assertThat(VectorizationProvider.kernels()).isSameAs(kernels);
        assertThat(VectorizationProvider.vectorUnavailableReason().isEmpty()).isEqualTo(EXPECT_VECTOR);
    }

    @Test
    void detectionWarnsOnceWithTheFlagToAddExactlyWhenTheModuleIsMissing() {
        List<String> warnings = new ArrayList<>();
        VectorizationProvider.Detection d = VectorizationProvider.detect(warnings::add);
        if (EXPECT_VECTOR) {
            assertThat(warnings).isEmpty();
            assertThat(d.kernels().vectorized()).isTrue();
        } else {
            assertThat(warnings).hasSize(1);
            assertThat(warnings.getFirst()).contains("--add-modules jdk.incubator.vector")
                    .contains("not in the module graph");
            assertThat(d.kernels()).isSameAs(VectorizationProvider.scalar());
            assertThat(d.unavailableReason()).isPresent();
        }
    }

    @Test
    void collectorsReportTheirKernelsAndVectorIsRefusedWithoutTheModule() {
        try (SerialCollector scalar = SerialCollector.create(Vectorization.SCALAR);
             ParallelCollector auto = ParallelCollector.builder().parallelism(2).build()) {
            assertThat(scalar.kernels()).isEqualTo("scalar");
            assertThat(auto.kernels()).isEqualTo(VectorizationProvider.kernels().name());
        }
        if (EXPECT_VECTOR) {
            try (ParallelCollector vector = ParallelCollector.builder().vectorization(Vectorization.VECTOR).build()) {
                assertThat(vector.kernels()).startsWith("panama-");
            }
        } else {
            assertThatThrownBy(() -> SerialCollector.create(Vectorization.VECTOR))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("--add-modules jdk.incubator.vector");
        }
    }
}
