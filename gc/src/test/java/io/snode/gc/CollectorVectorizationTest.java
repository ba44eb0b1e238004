package io.snode.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.runtime.internal.vectorization.VectorizationProvider;
import org.junit.jupiter.api.Test;

/**
 * Runs in both Surefire executions: {@code snode.test.expectVector} says whether this JVM was
 * started with {@code jdk.incubator.vector}, so each execution proves it ran the configuration
 * it claims, and that the collectors zero with the kernels the provider chose.
 */
class CollectorVectorizationTest {

    private static final boolean EXPECT_VECTOR = Boolean.parseBoolean(
            System.getProperty("snode.test.expectVector", "true"));

    @Test
    void theModuleGraphIsTheOneThisExecutionClaims() {
        assertThat(ModuleLayer.boot().findModule(VectorizationProvider.VECTOR_MODULE).isPresent())
                .isEqualTo(EXPECT_VECTOR);
        assertThat(VectorizationProvider.getInstance().vectorized()).isEqualTo(EXPECT_VECTOR);
    }

    @Test
    void collectorsReportTheirKernelsAndVectorIsRefusedWithoutTheModule() {
        try (SerialCollector scalar = SerialCollector.create(Vectorization.SCALAR);
             ParallelCollector auto = ParallelCollector.builder().parallelism(2).build()) {
            assertThat(scalar.kernels()).isEqualTo("scalar");
            assertThat(auto.kernels()).isEqualTo(VectorizationProvider.getInstance().gcKernels().name());
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
