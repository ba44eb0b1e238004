package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The cap's message advises what can help: deactivating cells only where the pool holds some
 * and the request could fit under the cap (it advised deactivating cells when a runtime's root
 * cell alone passed the cap at compile time, until 12-06).
 */
class MemoryCapExceededExceptionTest {
    @Test
    void theAdviceFitsWhatThePoolHolds() {
        assertThat(new MemoryCapExceededException("root", 0, 4_000_000, 1_000).getMessage())
                .endsWith("(this one request is larger than the whole cap; raise the cap to at least 4000000 bytes)");
        assertThat(new MemoryCapExceededException("root/pointer(i,8)", 0, 512, 1_000).getMessage())
                .endsWith("(raise the cap)");
        assertThat(new MemoryCapExceededException("root/pointer(i,8)", 900, 512, 1_000).getMessage())
                .contains("raise the cap, or deactivate cells of the same SNode").startsWith("memory cap exceeded: "
                        + "owner=root/pointer(i,8) bytesRequested=512 bytesHeld=900 capBytes=1000");
    }
}
