package io.snode.bench.demo;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.Kernel4;
import io.snode.codegen.kernel.LeafBlock;
import io.snode.codegen.kernel.ViewKernel3;
import io.snode.codegen.samples.SplitMix64;
import io.snode.runtime.MemoryStats;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * A 3-D sparse particle-in-cell run over one SNode layout that uses every node kind:
 *
 * <pre>
 * hash(ijk,4).pointer(ijk,8){                           64 top cells of 64^3, 32^3 blocks of 8^3
 *     dense(ijk,8).place(f32 rho, vx, vy, vz,           the grid: density, velocity, and the
 *                        i64 m, mx, my, mz);            fixed-point mass and momentum sums
 *     bitmasked(ijk,8).place(i32 hits);                 cells touched this step
 *     dynamic(l,4194304,128).place(f32 ax .. aw);       particle buffer a, one list per block
 *     dynamic(l,4194304,128).place(f32 bx .. bw) }      particle buffer b
 * </pre>
 *
 * <p>One {@link #step()}: clear the grid and the marks; emit particles at the source into their
 * blocks' lists; particle to grid (each block's particles share their mass and momentum out to the
 * 8 cells around each of them, summed per block, then atomically added to the grid, marking the
 * cells); grid update over the marked cells (velocity = momentum / mass, then the swirl about the
 * centre line and gravity); grid to particle (interpolate the velocity back, move, append to the
 * other buffer in the new block, drop what leaves the domain); empty the read buffer; deactivate
 * the blocks that were not touched and hold no particle, and the top cells left with no block;
 * collect. Particle lists live only in active blocks, so the grid's active set follows the
 * particles through the domain and memory follows the active set.
 *
 * <p>The particle phases are block kernels over the read buffer's lists: each list comes with its
 * chunks, read as contiguous memory ({@link ParticleBuffer#load}), and the grid cells around its
 * block are read and added neighbouring block by neighbouring block, so that the thread's caching
 * accessor walks once per block, not once per cell. The grid update is a view kernel: its view
 * knows the block of the cell it is given. (Per-element reads and a halo read row by row made a
 * step about 1.4x as long: 62-63 against 45-46 ms on the default run, the same checksum.)
 *
 * <p>Determinism: particles land in lists in an order that depends on thread timing, so nothing
 * depends on that order. Mass and momentum are summed as 64-bit integers (value * 2^20, each
 * particle's share rounded on its own), which is exact and order-free; everything else is
 * computed per cell or per particle from those sums. The same seed therefore gives the same
 * particles and the same {@link #checksum()} whatever the thread count.
 *
 * <p>Not thread-safe: one thread drives the steps (the launches fan out by themselves).
 */
public final class ParticleInCell implements AutoCloseable {
    /** Cells along a block's edge. */
    public static final int BLOCK = 8;
    /** Blocks along the domain's edge. */
    public static final int BLOCKS = 32;
    /** Cells along the domain's edge. */
    public static final int N = BLOCK * BLOCKS;
    /** Top-level pointer cells along the domain's edge. */
    public static final int TOPS = 4;
    /** Most particles a run may emit; no list can overflow its capacity below it. */
    public static final int MAX_PARTICLES = 4_000_000;
    /** Most steps a run may take. */
    public static final int MAX_STEPS = 100_000;
    /** Capacity of each block's particle list: at least {@link #MAX_PARTICLES}. */
    static final int LIST_CAPACITY = 1 << 22;

    public static final String LAYOUT = "hash(ijk,4).pointer(ijk,8){ "
            + "dense(ijk,8).place(f32 rho, f32 vx, f32 vy, f32 vz, i64 m, i64 mx, i64 my, i64 mz); "
            + "bitmasked(ijk,8).place(i32 hits); "
            + "dynamic(l," + LIST_CAPACITY + ",128).place(f32 ax, f32 ay, f32 az, f32 au, f32 av, f32 aw); "
            + "dynamic(l," + LIST_CAPACITY + ",128).place(f32 bx, f32 by, f32 bz, f32 bu, f32 bv, f32 bw) }";

    /** Fixed-point scale of the mass and momentum sums: 2^20. */
    static final double SCALE = 1 << 20;

    // The flow. A source off the centre line puffs particles along +x, already turning with the
    // swirl: a rotation about the domain's centre line (parallel to x) that the grid velocity is
    // pulled towards, with the centripetal acceleration that keeps co-rotating matter on its
    // circle, plus a weak ABC flow (steady, divergence-free, chaotic) that gives the puffs
    // texture; gravity pulls along -z. The stream becomes a helix drifting along x.
    static final double SOURCE_X = 24;
    static final double SOURCE_Y = N / 2.0;
    static final double SOURCE_Z = N / 2.0 + 42;
    static final double SOURCE_RADIUS = 6;
    /** Launch speed along x, cells per step. */
    static final double LAUNCH = 1.5;
    /** Initial expansion rate of a puff, per step. */
    static final double EXPANSION = 0.04;
    /** Noise on the initial velocity, cells per step. */
    static final double JITTER = 0.05;
    static final double AXIS_Y = N / 2.0;
    static final double AXIS_Z = N / 2.0;
    /** Drift of the target flow along x, cells per step. */
    static final double DRIFT = 1.3;
    /** Angular velocity of the swirl, radians per step. */
    static final double OMEGA = 0.08;
    /** Share of the gap to the target flow closed per step. */
    static final double RELAX = 0.04;
    /** Amplitude of the ABC flow, cells per step. */
    static final double CURL = 0.05;
    static final double WAVE = 2 * Math.PI / 56;
    /** Cells per step per step. */
    static final double GRAVITY = 0.004;
    /** Steps between puffs. */
    static final double PULSE = 16;
    /** Emission rate between puffs, relative to a puff's peak. */
    static final double FLOOR = 0.02;
    /** Share of the steps during which the source emits. */
    static final double EMITTING = 0.5;

    /** What a run does. */
    public record Config(int steps, int particles, long seed, int threads) {
        public Config {
            if (steps < 1 || steps > MAX_STEPS) {
                throw new IllegalArgumentException("steps=" + steps + " must be in 1.." + MAX_STEPS);
            }
            if (particles < 1 || particles > MAX_PARTICLES) {
                throw new IllegalArgumentException("particles=" + particles + " must be in 1.." + MAX_PARTICLES);
            }
            if (threads < 1) {
                throw new IllegalArgumentException("threads=" + threads + " must be at least 1");
            }
        }
    }

    /**
     * What one step did and what it left.
     *
     * @param particles    particles alive after the step
     * @param emitted      particles emitted this step
     * @param left         particles that left the domain this step
     * @param activeBlocks active 8^3 blocks after the collection
     * @param bytesInUse   bytes of the node cells in use (pointer cells, list chunks and directories)
     * @param bytesReserved bytes the runtime reserves, what a memory cap counts (cells in use, free and
     *                     recycled; with regions, pages never touched are reserved, not committed)
     */
    public record StepStats(int step, long particles, long emitted, long left, long activeBlocks,
                            long touchedCells, long bytesInUse, long bytesReserved, long gcNanos, long stepNanos) {
    }

    /**
     * Density projected along y: per (x, z) column the fixed-point mass summed over y; per
     * (block x, block z) column how many active blocks it holds, and whether it held one at any
     * step of the run (memory since reclaimed where it holds none now).
     */
    public record Projection(long[] mass, int[] blockDepth, boolean[] everActive) {
        public long mass(int x, int z) {
            return mass[z * N + x];
        }

        public int blockDepth(int bx, int bz) {
            return blockDepth[bz * BLOCKS + bx];
        }

        public boolean everActive(int bx, int bz) {
            return everActive[bz * BLOCKS + bx];
        }
    }

    private final Config config;
    private final SNodeRuntime runtime;
    private final PicFields grid;
    private final SNode tops;
    private final SNode blocks;
    private final SNode cells;
    private final SNode marks;
    private final ParticleBuffer[] buffers;
    private final long compileNanos;
    private final SplitMix64 random;
    /** Particles emitted before step n, for n in [0, emitting steps]. */
    private final long[] emittedBefore;
    private final byte[] touched = new byte[BLOCKS * BLOCKS * BLOCKS];
    private final byte[] keep = new byte[BLOCKS * BLOCKS * BLOCKS];
    private final byte[] seen = new byte[BLOCKS * BLOCKS * BLOCKS];
    /** Block columns along y, (bz, bx), that held an active block after some step. */
    private final boolean[] everActive = new boolean[BLOCKS * BLOCKS];
    private final LongAdder moved = new LongAdder();
    private final LongAdder left = new LongAdder();
    private final ThreadLocal<Halo> halos = ThreadLocal.withInitial(() -> new Halo(localFields()));
    private final long[] phaseNanos = new long[Phase.values().length];
    private int current;
    private int step;

    public ParticleInCell(Config config) {
        this.config = config;
        long start = System.nanoTime();
        Layout layout = Layout.parse(LAYOUT);
        this.runtime = SNodeRuntime.compile(layout);
        try {
            runtime.parallelism(config.threads());
            this.grid = runtime.bind(PicFields.class);
            this.compileNanos = System.nanoTime() - start;
        } catch (RuntimeException | Error e) {
            runtime.close();
            throw e;
        }
        this.tops = layout.snode(1);
        this.blocks = layout.snode(2);
        this.cells = layout.field("rho").snode();
        this.marks = layout.field("hits").snode();
        SNode listsA = layout.field("ax").snode();
        SNode listsB = layout.field("bx").snode();
        this.buffers = new ParticleBuffer[] {
                new ParticleBuffer.A(layout, runtime.nodeHandle("length", listsA)),
                new ParticleBuffer.B(layout, runtime.nodeHandle("length", listsB))};
        this.random = new SplitMix64(config.seed());
        this.emittedBefore = emissionSchedule(config);
    }

    public Config config() {
        return config;
    }

    public Layout layout() {
        return runtime.layout();
    }

    /** Time taken to parse and compile the layout and bind {@link PicFields}. */
    public long compileNanos() {
        return compileNanos;
    }

    public int stepsDone() {
        return step;
    }

    /** Advances the run by one step. */
    public StepStats step() {
        long start = System.nanoTime();
        long mark = start;
        ParticleBuffer source = buffers[current];
        ParticleBuffer target = buffers[1 - current];

        // 1. A fresh grid: no marks, zero sums in every active block.
        runtime.generic().deactivateAll(marks);
        runtime.forEachBlock(cells, block -> block.cells().fill((byte) 0));
        mark = phase(Phase.CLEAR, mark);

        // 2. The source emits into the lists of the blocks the new particles lie in.
        int emitted = emit(source);
        mark = phase(Phase.EMIT, mark);

        // 3. Particle to grid.
        runtime.forEachBlock(source.snode(), list -> scatterBlock(source, list));
        mark = phase(Phase.P2G, mark);

        // 4. Grid update over the touched cells.
        Arrays.fill(touched, (byte) 0);
        runtime.forEach(marks, PicFields.class, (ViewKernel3<PicFields>) this::updateCell);
        long touchedCells = runtime.count("hits");
        mark = phase(Phase.GRID, mark);

        // 5. Grid to particle: move, re-append in the other buffer.
        moved.reset();
        left.reset();
        runtime.forEachBlock(source.snode(), list -> gatherBlock(source, target, list));
        runtime.generic().deactivateAll(source.snode());
        mark = phase(Phase.G2P, mark);

        // 6. Blocks that were not touched and hold no particle go, then top cells left empty.
        prune(target);
        mark = phase(Phase.PRUNE, mark);
        runtime.gc();
        long gcNanos = System.nanoTime() - mark;
        mark = phase(Phase.GC, mark);

        current = 1 - current;
        step++;
        MemoryStats stats = runtime.memoryStats();
        return new StepStats(step, moved.sum(), emitted, left.sum(), stats.of(blocks).cells().cellsInUse(), touchedCells,
                bytesInUse(stats), stats.bytesReserved(), gcNanos, System.nanoTime() - start);
    }

    /** The parts of a step, for {@link #phaseNanos()}. */
    public enum Phase {
        CLEAR("clear"), EMIT("emit"), P2G("particle to grid"), GRID("grid update"), G2P("grid to particle"),
        PRUNE("deactivate"), GC("collect");

        private final String text;

        Phase(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    /** Time spent in each phase over all steps so far, indexed by {@link Phase#ordinal()}. */
    public long[] phaseNanos() {
        return phaseNanos.clone();
    }

    private long phase(Phase phase, long since) {
        long now = System.nanoTime();
        phaseNanos[phase.ordinal()] += now - since;
        return now;
    }

    /** Particles the source emits at step {@code n} (from 0). */
    int emissionAt(int n) {
        return n + 1 < emittedBefore.length ? (int) (emittedBefore[n + 1] - emittedBefore[n]) : 0;
    }

    /**
     * Particles emitted before each step: the source puffs during the first {@link #EMITTING}
     * of the steps, its rate a squared raised cosine of period {@link #PULSE} over a low floor,
     * and emits {@code particles} in all.
     */
    static long[] emissionSchedule(Config config) {
        int emitting = Math.max(1, (int) Math.ceil(config.steps() * EMITTING));
        double[] rate = new double[emitting + 1];
        for (int t = 0; t < emitting; t++) {
            double puff = 0.5 - 0.5 * Math.cos(2 * Math.PI * t / PULSE);
            rate[t + 1] = rate[t] + FLOOR + puff * puff;
        }
        long[] before = new long[emitting + 1];
        for (int t = 0; t < emitting; t++) {
            before[t] = (long) Math.floor(config.particles() * rate[t] / rate[emitting]);
        }
        before[emitting] = config.particles();
        return before;
    }

    private int emit(ParticleBuffer into) {
        int count = emissionAt(step);
        for (int n = 0; n < count; n++) {
            double dx;
            double dy;
            double dz;
            do { // uniform in the unit ball
                dx = 2 * unit() - 1;
                dy = 2 * unit() - 1;
                dz = 2 * unit() - 1;
            } while (dx * dx + dy * dy + dz * dz > 1);
            float x = (float) (SOURCE_X + SOURCE_RADIUS * dx);
            float y = (float) (SOURCE_Y + SOURCE_RADIUS * dy);
            float z = (float) (SOURCE_Z + SOURCE_RADIUS * dz);
            // Launched along x, turning with the swirl, expanding from the source's centre, with a
            // little noise.
            float u = (float) (LAUNCH + EXPANSION * SOURCE_RADIUS * dx + JITTER * (2 * unit() - 1));
            float v = (float) (-OMEGA * (z - AXIS_Z) + EXPANSION * SOURCE_RADIUS * dy + JITTER * (2 * unit() - 1));
            float w = (float) (OMEGA * (y - AXIS_Y) + EXPANSION * SOURCE_RADIUS * dz + JITTER * (2 * unit() - 1));
            into.append(grid, blockOf(x), blockOf(y), blockOf(z), x, y, z, u, v, w);
        }
        return count;
    }

    private double unit() {
        return (random.next() >>> 11) * 0x1.0p-53;
    }

    private static int blockOf(float position) {
        return (int) position / BLOCK;
    }

    /**
     * Per-thread scratch of one block's neighbourhood: the {@value #HALO}^3 cells from one cell
     * before the block to one cell after it, which is every cell the block's particles reach.
     */
    private static final class Halo {
        final PicFields fields;
        final long[] m = new long[HALO * HALO * HALO];
        final long[] mx = new long[m.length];
        final long[] my = new long[m.length];
        final long[] mz = new long[m.length];
        final boolean[] hit = new boolean[m.length];
        final float[] u = new float[m.length];
        final float[] v = new float[m.length];
        final float[] w = new float[m.length];
        final ParticleBuffer.Particles particles = new ParticleBuffer.Particles();

        Halo(PicFields fields) {
            this.fields = fields;
        }

        void clearSums() {
            Arrays.fill(m, 0);
            Arrays.fill(mx, 0);
            Arrays.fill(my, 0);
            Arrays.fill(mz, 0);
            Arrays.fill(hit, false);
        }
    }

    /** Cells along the edge of a block's neighbourhood. */
    static final int HALO = BLOCK + 2;

    /**
     * The thread's view of the fields: a caching accessor (one per thread), which skips the walk
     * from the root while a kernel stays in one block; it measured about 30% faster than the
     * bound interface on this workload.
     */
    private PicFields localFields() {
        return runtime.accessor(PicFields.class);
    }

    private static int haloIndex(int i, int j, int k) {
        return (i * HALO + j) * HALO + k;
    }

    /**
     * Particle to grid for the particles of one list (block (bi, bj, bk)'s), cloud-in-cell: each
     * particle's mass 1 and momentum go to the 8 cells around it, weighted by overlap and rounded
     * to fixed point per particle. The list's particles are read chunk by chunk into the thread's
     * {@link Halo}, the block's shares summed there, then added to the grid with one atomic add
     * per cell and field, and the cells are marked.
     */
    private void scatterBlock(ParticleBuffer from, LeafBlock list) {
        if (list.cellCount() == 0) {
            return;
        }
        Halo halo = halos.get();
        ParticleBuffer.Particles p = halo.particles;
        from.load(list, p);
        halo.clearSums();
        int oi = list.origin(0) * BLOCK - 1;
        int oj = list.origin(1) * BLOCK - 1;
        int ok = list.origin(2) * BLOCK - 1;
        for (int l = 0; l < p.count; l++) {
            float x = p.x[l] - 0.5f;
            float y = p.y[l] - 0.5f;
            float z = p.z[l] - 0.5f;
            float u = p.u[l];
            float v = p.v[l];
            float w = p.w[l];
            int i0 = (int) Math.floor(x);
            int j0 = (int) Math.floor(y);
            int k0 = (int) Math.floor(z);
            float fx = x - i0;
            float fy = y - j0;
            float fz = z - k0;
            for (int di = 0; di < 2; di++) {
                float wx = di == 0 ? 1 - fx : fx;
                for (int dj = 0; dj < 2; dj++) {
                    float wy = dj == 0 ? 1 - fy : fy;
                    for (int dk = 0; dk < 2; dk++) {
                        float weight = wx * wy * (dk == 0 ? 1 - fz : fz);
                        int h = haloIndex(i0 + di - oi, j0 + dj - oj, k0 + dk - ok);
                        halo.m[h] += Math.round(weight * SCALE);
                        halo.mx[h] += Math.round(weight * u * SCALE);
                        halo.my[h] += Math.round(weight * v * SCALE);
                        halo.mz[h] += Math.round(weight * w * SCALE);
                        halo.hit[h] = true;
                    }
                }
            }
        }
        PicFields f = halo.fields;
        for (int h : HALO_BY_BLOCK) {
            if (!halo.hit[h]) {
                continue;
            }
            int i = oi + h / (HALO * HALO);
            int j = oj + h / HALO % HALO;
            int k = ok + h % HALO;
            f.addM(i, j, k, halo.m[h]);
            f.addMx(i, j, k, halo.mx[h]);
            f.addMy(i, j, k, halo.my[h]);
            f.addMz(i, j, k, halo.mz[h]);
            f.hits(i, j, k, 1);
        }
    }

    /**
     * Every {@link #haloIndex} of a block's neighbourhood ({@link Halo}), neighbouring block by
     * neighbouring block: cut along the block edges (along each axis, the cell before the block,
     * the block's {@value #BLOCK} cells, the cell after it), the 27 parts each lie in one block, so
     * that a loop in this order keeps an accessor in one block for a whole part.
     */
    private static final int[] HALO_BY_BLOCK = haloByBlock();

    private static int[] haloByBlock() {
        int[] low = {0, 1, BLOCK + 1};
        int[] high = {1, BLOCK + 1, HALO};
        int[] order = new int[HALO * HALO * HALO];
        int n = 0;
        for (int part = 0; part < 27; part++) {
            for (int hi = low[part / 9]; hi < high[part / 9]; hi++) {
                for (int hj = low[part / 3 % 3]; hj < high[part / 3 % 3]; hj++) {
                    for (int hk = low[part % 3]; hk < high[part % 3]; hk++) {
                        order[n++] = haloIndex(hi, hj, hk);
                    }
                }
            }
        }
        return order;
    }

    /**
     * Velocity from momentum, then the swirl and gravity act on it; the cell's block is touched.
     * {@code grid} is the launch's view of the fields, which knows the block being visited.
     */
    private void updateCell(PicFields grid, int i, int j, int k) {
        touched[blockIndex(i / BLOCK, j / BLOCK, k / BLOCK)] = 1; // benign race: every writer stores 1
        long m = grid.m(i, j, k);
        if (m <= 0) {
            return;
        }
        double u = grid.mx(i, j, k) / (double) m;
        double v = grid.my(i, j, k) / (double) m;
        double w = grid.mz(i, j, k) / (double) m;
        double x = i + 0.5;
        double y = j + 0.5;
        double z = k + 0.5;
        double dy = y - AXIS_Y;
        double dz = z - AXIS_Z;
        // Target flow: drift along x, rigid rotation about the centre line, and an ABC flow
        // (a steady, divergence-free, chaotic field) that stretches the stream into filaments.
        double targetU = DRIFT + CURL * (Math.sin(WAVE * z) + Math.cos(WAVE * y));
        double targetV = -OMEGA * dz + CURL * (Math.sin(WAVE * x) + Math.cos(WAVE * z));
        double targetW = OMEGA * dy + CURL * (Math.sin(WAVE * y) + Math.cos(WAVE * x));
        // The swirl: a pull towards the rotating flow plus the centripetal acceleration that keeps
        // what co-rotates on its circle; then gravity.
        u += (targetU - u) * RELAX;
        v += (targetV - v) * RELAX - OMEGA * OMEGA * dy;
        w += (targetW - w) * RELAX - OMEGA * OMEGA * dz - GRAVITY;
        grid.rho(i, j, k, (float) (m / SCALE));
        grid.vx(i, j, k, (float) u);
        grid.vy(i, j, k, (float) v);
        grid.vz(i, j, k, (float) w);
    }

    /**
     * Grid to particle for the particles of one list (block (bi, bj, bk)'s): the velocities of
     * the block's neighbourhood are read once into the thread's {@link Halo} (neighbouring block
     * by block), the list's particles chunk by chunk, then each particle takes the cloud-in-cell
     * interpolation of the velocities, moves, and is appended to the list of the block it lands
     * in (in the other buffer), or dropped when it leaves the domain.
     */
    private void gatherBlock(ParticleBuffer from, ParticleBuffer to, LeafBlock list) {
        if (list.cellCount() == 0) {
            return;
        }
        Halo halo = halos.get();
        PicFields f = halo.fields;
        ParticleBuffer.Particles p = halo.particles;
        from.load(list, p);
        int oi = list.origin(0) * BLOCK - 1;
        int oj = list.origin(1) * BLOCK - 1;
        int ok = list.origin(2) * BLOCK - 1;
        for (int h : HALO_BY_BLOCK) {
            int i = oi + h / (HALO * HALO);
            int j = oj + h / HALO % HALO;
            int k = ok + h % HALO;
            boolean inDomain = i >= 0 && j >= 0 && k >= 0 && i < N && j < N && k < N;
            halo.u[h] = inDomain ? f.vx(i, j, k) : 0;
            halo.v[h] = inDomain ? f.vy(i, j, k) : 0;
            halo.w[h] = inDomain ? f.vz(i, j, k) : 0;
        }
        long kept = 0;
        long gone = 0;
        for (int l = 0; l < p.count; l++) {
            float px = p.x[l];
            float py = p.y[l];
            float pz = p.z[l];
            float x = px - 0.5f;
            float y = py - 0.5f;
            float z = pz - 0.5f;
            int i0 = (int) Math.floor(x);
            int j0 = (int) Math.floor(y);
            int k0 = (int) Math.floor(z);
            float fx = x - i0;
            float fy = y - j0;
            float fz = z - k0;
            float u = 0;
            float v = 0;
            float w = 0;
            for (int di = 0; di < 2; di++) {
                float wx = di == 0 ? 1 - fx : fx;
                for (int dj = 0; dj < 2; dj++) {
                    float wy = dj == 0 ? 1 - fy : fy;
                    for (int dk = 0; dk < 2; dk++) {
                        float weight = wx * wy * (dk == 0 ? 1 - fz : fz);
                        int h = haloIndex(i0 + di - oi, j0 + dj - oj, k0 + dk - ok);
                        u += weight * halo.u[h];
                        v += weight * halo.v[h];
                        w += weight * halo.w[h];
                    }
                }
            }
            px += u;
            py += v;
            pz += w;
            if (!inside(px) || !inside(py) || !inside(pz)) {
                gone++;
                continue;
            }
            to.append(f, blockOf(px), blockOf(py), blockOf(pz), px, py, pz, u, v, w);
            kept++;
        }
        moved.add(kept);
        left.add(gone);
    }

    /** Whether a particle at {@code position} has its 8 cells inside the domain. */
    private static boolean inside(float position) {
        return position >= 0.5f && Math.floor(position - 0.5f) + 1 < N;
    }

    /**
     * Deactivates every block that no particle touched this step and whose list in
     * {@code holding} is empty; a top cell left with no block is deactivated as a whole. Runs
     * outside launches, so the collection that follows sees every recycled cell.
     */
    private void prune(ParticleBuffer holding) {
        Arrays.fill(keep, (byte) 0);
        Arrays.fill(seen, (byte) 0);
        runtime.forEach(blocks, (Kernel3) (bi, bj, bk) -> {
            int index = blockIndex(bi, bj, bk);
            seen[index] = 1; // each block is visited once, by one task; read after the launch joins
            if (touched[index] != 0 || holding.length(bi, bj, bk) > 0) {
                keep[index] = 1;
            }
        });
        int per = BLOCKS / TOPS;
        int[] keptInTop = new int[TOPS * TOPS * TOPS];
        boolean[] seenInTop = new boolean[keptInTop.length];
        for (int index = 0; index < seen.length; index++) {
            if (seen[index] != 0) {
                int top = topOf(index, per);
                seenInTop[top] = true;
                keptInTop[top] += keep[index];
                if (keep[index] != 0) {
                    everActive[(index % BLOCKS) * BLOCKS + index / (BLOCKS * BLOCKS)] = true;
                }
            }
        }
        var generic = runtime.generic();
        for (int top = 0; top < keptInTop.length; top++) {
            if (seenInTop[top] && keptInTop[top] == 0) {
                generic.deactivate(tops, top / (TOPS * TOPS), top / TOPS % TOPS, top % TOPS);
            }
        }
        for (int index = 0; index < seen.length; index++) {
            if (seen[index] != 0 && keep[index] == 0 && keptInTop[topOf(index, per)] > 0) {
                generic.deactivate(blocks, index / (BLOCKS * BLOCKS), index / BLOCKS % BLOCKS, index % BLOCKS);
            }
        }
    }

    /** The top cell that holds block {@code index}, {@code per} blocks along each of its edges. */
    private static int topOf(int index, int per) {
        int bi = index / (BLOCKS * BLOCKS);
        int bj = index / BLOCKS % BLOCKS;
        int bk = index % BLOCKS;
        return ((bi / per) * TOPS + bj / per) * TOPS + bk / per;
    }

    private static int blockIndex(int bi, int bj, int bk) {
        return (bi * BLOCKS + bj) * BLOCKS + bk;
    }

    private ParticleBuffer holding() {
        return buffers[current];
    }

    /**
     * A digest of the state that does not depend on list order: the particles as a multiset
     * (a wrapping sum of a hash of each particle's bits), their count, and the grid's
     * fixed-point mass and momentum totals.
     */
    public long checksum() {
        ParticleBuffer particles = holding();
        LongAdder hashes = new LongAdder();
        LongAdder count = new LongAdder();
        runtime.forEach(particles.field(), (Kernel4) (bi, bj, bk, l) -> {
            long h = mix(((long) Float.floatToRawIntBits(particles.x(grid, bi, bj, bk, l)) << 32)
                    ^ Integer.toUnsignedLong(Float.floatToRawIntBits(particles.y(grid, bi, bj, bk, l))));
            h = mix(h ^ ((long) Float.floatToRawIntBits(particles.z(grid, bi, bj, bk, l)) << 32)
                    ^ Integer.toUnsignedLong(Float.floatToRawIntBits(particles.u(grid, bi, bj, bk, l))));
            h = mix(h ^ ((long) Float.floatToRawIntBits(particles.v(grid, bi, bj, bk, l)) << 32)
                    ^ Integer.toUnsignedLong(Float.floatToRawIntBits(particles.w(grid, bi, bj, bk, l))));
            hashes.add(h); // wrapping addition: order-free
            count.increment();
        });
        LongAdder mass = new LongAdder();
        LongAdder momentum = new LongAdder();
        runtime.forEach("m", (Kernel3) (i, j, k) -> {
            mass.add(grid.m(i, j, k));
            momentum.add(mix(grid.mx(i, j, k)) + 3 * mix(grid.my(i, j, k)) + 5 * mix(grid.mz(i, j, k)));
        });
        long digest = mix(hashes.sum() ^ 0x5DEECE66DL);
        digest = mix(digest ^ count.sum());
        digest = mix(digest ^ mass.sum());
        return mix(digest ^ momentum.sum());
    }

    /** The density of the last step projected along y, with the active blocks per column. */
    public Projection projection() {
        long[] mass = new long[N * N];
        int[] depth = new int[BLOCKS * BLOCKS];
        var massField = layout().field("m");
        runtime.forEachBlock(cells, block -> {
            long m = block.fieldOffset(massField);
            long[] columns = new long[BLOCK * BLOCK];
            for (int n = 0; n < block.cellCount(); n++) { // cell n = (di * 8 + dj) * 8 + dk
                int di = n / (BLOCK * BLOCK);
                int dk = n % BLOCK;
                columns[dk * BLOCK + di] += block.cells().get(ValueLayout.JAVA_LONG_UNALIGNED,
                        n * block.cellBytes() + m);
            }
            int x0 = block.origin(0);
            int z0 = block.origin(2);
            synchronized (mass) {
                for (int dk = 0; dk < BLOCK; dk++) {
                    for (int di = 0; di < BLOCK; di++) {
                        mass[(z0 + dk) * N + x0 + di] += columns[dk * BLOCK + di];
                    }
                }
                depth[(z0 / BLOCK) * BLOCKS + x0 / BLOCK]++;
            }
        });
        return new Projection(mass, depth, everActive.clone());
    }

    /** Bytes of the cells in use, summed over every node manager (the root cell is not counted). */
    static long bytesInUse(MemoryStats stats) {
        long bytes = 0;
        for (MemoryStats.SNodeStats node : stats.snodes()) {
            bytes += node.cells().cellsInUse() * node.cells().cellStride();
            if (node.directories() != null) {
                bytes += node.directories().cellsInUse() * node.directories().cellStride();
            }
        }
        return bytes;
    }

    /**
     * {@code digest} with one step's figures folded in (its number, particles, emitted, left,
     * active blocks, touched cells: what the step's line prints that does not depend on the
     * machine), in step order, so that the demo's checksum covers the whole run, not only its
     * final state (which is the same for every run once every particle has left the domain).
     */
    public static long foldStep(long digest, StepStats stats) {
        long d = mix(digest ^ stats.step());
        d = mix(d ^ stats.particles());
        d = mix(d ^ stats.emitted());
        d = mix(d ^ stats.left());
        d = mix(d ^ stats.activeBlocks());
        return mix(d ^ stats.touchedCells());
    }

    /** The demo's printed checksum: the final state's {@link #checksum()} and the steps' {@link #foldStep} digest. */
    public static long runChecksum(long stateChecksum, long stepsDigest) {
        return mix(stateChecksum ^ mix(stepsDigest));
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public void close() {
        runtime.close();
    }
}
