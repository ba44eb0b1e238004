package io.snode.bench.workload;

import io.snode.bench.workload.SNodeContender.Grid;
import io.snode.codegen.samples.NarrowBand;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The runner's timed loops of per-voxel calls (W1's and W4's writes, W2's reads, W5's writes),
 * each row with a copy of its own: {@link #fresh()}.
 *
 * <p>Why copies: HotSpot keeps one receiver profile per call site, and every runtime generates
 * classes of its own, so a loop shared by the rows of the bound interface, the caching accessor
 * and the other runtimes (huge pages, page release) sees several classes at {@code grid.phi}:
 * the JIT inlines at most two of them behind type checks, or calls through the interface, and a
 * row measures the rows before it. Measured with the runner's child (W1s and W2 on L2, one loop
 * shared against a copy per row, alternating): W1s through the accessor 0.127-0.133 s against
 * 0.102-0.109 s, W2 through the accessor 0.83 s against 0.66 s; the bound interface, the first
 * row, moved within the noise. A user's loop calls one class. Each copy is a hidden class defined
 * from the bytes of {@link Body}, so its methods, and their profiles, are its own: JMH's rule of one
 * compiled body per benchmark, without a JVM per row.
 */
public interface GridLoop {
    /** Writes cells {@code [from, to)} of {@code list} through {@code grid}. */
    void write(Grid grid, NarrowBand list, int from, int to);

    /** Writes cells {@code first}, {@code first + step}, ... of {@code list} through {@code grid} (W5's parts). */
    void writeEvery(Grid grid, NarrowBand list, int first, int step);

    /** The sum of the values at {@code (is[q], js[q], ks[q])}, read through {@code grid}. */
    double read(Grid grid, int[] is, int[] js, int[] ks);

    /** A copy of the loops that no other row has called. */
    static GridLoop fresh() {
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(BodyBytes.BYTES, true);
            return (GridLoop) copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot define a copy of " + Body.class.getName(), e);
        }
    }

    /** The loops; only their copies run (a hidden class each). It holds no state: each copy would initialise its own. */
    final class Body implements GridLoop {

        @Override
        public void write(Grid grid, NarrowBand list, int from, int to) {
            for (int n = from; n < to; n++) {
                grid.phi(list.i(n), list.j(n), list.k(n), list.value(n));
            }
        }

        @Override
        public void writeEvery(Grid grid, NarrowBand list, int first, int step) {
            for (int n = first; n < list.size(); n += step) {
                grid.phi(list.i(n), list.j(n), list.k(n), list.value(n));
            }
        }

        @Override
        public double read(Grid grid, int[] is, int[] js, int[] ks) {
            double sum = 0;
            for (int q = 0; q < is.length; q++) {
                sum += grid.phi(is[q], js[q], ks[q]);
            }
            return sum;
        }
    }

    /** The class file of {@link Body}, read once. */
    final class BodyBytes {
        static final byte[] BYTES = classBytes();

        private BodyBytes() {
        }

        private static byte[] classBytes() {
            String name = Body.class.getName();
            try (InputStream in = Body.class.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
                if (in == null) {
                    throw new IllegalStateException("the class file of " + name + " is not on the class path");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
