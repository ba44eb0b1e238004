package io.snode.runtime.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The one class that makes restricted FFM calls: reserving address space with {@code mmap},
 * giving pages back with {@code madvise(MADV_DONTNEED)}, keeping a region on base pages with
 * {@code madvise(MADV_NOHUGEPAGE)} or asking for huge pages with
 * {@code madvise(MADV_HUGEPAGE)}, counting committed pages with {@code /proc/self/pagemap} (or
 * resident ones with {@code mincore} where it cannot be read) and unmapping with {@code munmap}, on
 * Linux on x86-64 and AArch64 (where those constants hold) with 4 KiB base pages
 * ({@link #pageSizeRefusal}: a kernel with larger ones is logged once and gets chunks), and only where native access is
 * enabled for this class's module ({@code --enable-native-access}), so that the JVM never warns
 * about a restricted call. Elsewhere, or without that flag (one {@link System.Logger} warning,
 * logger {@value #LOGGER}, names it), or where the native linker or the symbols are missing,
 * {@link #AVAILABLE} is false and the pool allocates chunks one by one. A mapping the kernel
 * refuses (address space used up, strict overcommit) makes {@link #reserve} return null, so that
 * SNode's cells live in chunks; the first refusal is logged, once per JVM.
 *
 * <p>A region is mapped {@code PROT_READ | PROT_WRITE}, private, anonymous and
 * {@code MAP_NORESERVE}: no physical page and no swap is committed until a page is first touched,
 * and an untouched or given-back page reads zero. The segment returned is bounded by the
 * region's size and belongs to a shared arena whose close unmaps it, so an access after that
 * close throws {@link IllegalStateException} as for any closed segment; FFM's bounds
 * checks stay on for every access. The kernel cannot refuse a page at first touch with an
 * exception (it would end the process), which is why the pool counts every byte of a region it
 * hands out against the cap <em>before</em> any of it is touched. For the same reason a region
 * is advised {@code MADV_NOHUGEPAGE} as it is reserved: where transparent huge pages are at
 * {@code always}, the kernel would otherwise back it with huge pages on first touch (or
 * {@code khugepaged} later), committing up to 2 MiB around a touched byte that the pool has not
 * counted; {@link #adviseHugePages} lifts that for the regions that ask for huge pages, whose
 * pool counts them ({@link MemoryPool}).
 */
final class NativeRegions {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int MADV_DONTNEED = 4;
    private static final int MADV_HUGEPAGE = 14;
    private static final int MADV_NOHUGEPAGE = 15;
    private static final long MAP_FAILED = -1L;
    /** The {@link System.Logger} of the one warning when native access is not enabled. */
    static final String LOGGER = "io.snode.runtime.internal.memory.regions";
    /** The page size every offset and size given here is a multiple of (Linux's base page). */
    static final long PAGE = 4096;

    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MINCORE;
    /** Whether regions can be reserved on this platform. */
    static final boolean AVAILABLE;

    static {
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        MethodHandle madvise = null;
        MethodHandle mincore = null;
        boolean platform = supportedPlatform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        boolean nativeAccess = NativeRegions.class.getModule().isNativeAccessEnabled();
        if (platform && !nativeAccess) {
            System.getLogger(LOGGER).log(System.Logger.Level.WARNING, "SNode keeps each SNode's cells in chunks "
                    + "(a chunk lookup per pointer level): native access is not enabled for "
                    + describe(NativeRegions.class.getModule()) + ", so it reserves no region of address space with mmap. "
                    + "Add '--enable-native-access=" + flagValue(NativeRegions.class.getModule())
                    + "' to the java command line to use regions.");
        }
        if (platform && nativeAccess) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
                madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_INT));
                mincore = linker.downcallHandle(libc.find("mincore").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.ADDRESS));
                MethodHandle getpagesize = linker.downcallHandle(libc.find("getpagesize").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT));
                String refusal = pageSizeRefusal(pageSize(getpagesize));
                if (refusal != null) {
                    System.getLogger(LOGGER).log(System.Logger.Level.WARNING, refusal);
                    mmap = null;
                }
            } catch (RuntimeException | LinkageError unavailable) {
                mmap = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
        MADVISE = madvise;
        MINCORE = mincore;
        AVAILABLE = mmap != null;
    }

    private NativeRegions() {
    }

    /** Whether {@code os.name} and {@code os.arch} name a platform whose {@code mmap}/{@code madvise} constants this class holds. */
    static boolean supportedPlatform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"));
    }

    /**
     * Null where the kernel's base page is {@link #PAGE} bytes, else the warning that says why
     * regions are not used: every offset this class gives {@code madvise} and every count of
     * committed pages assumes 4 KiB pages, and the pool counts a region's cells against the cap
     * by those pages; with larger base pages (an AArch64 kernel built for 16 or 64 KiB pages)
     * the first touch of a cell would commit more than was counted, and a huge page would not be
     * 2 MiB. So such a kernel gets chunks, as a platform without {@code mmap} does.
     */
    static String pageSizeRefusal(int pageSize) {
        if (pageSize == PAGE) {
            return null;
        }
        return "SNode keeps each SNode's cells in chunks (a chunk lookup per pointer level): the kernel's page is "
                + pageSize + " bytes, and SNode's regions of address space assume pages of " + PAGE
                + " bytes (the memory cap counts a region's committed memory by them).";
    }

    private static int pageSize(MethodHandle getpagesize) {
        try {
            return (int) getpagesize.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("getpagesize failed", t);
        }
    }

    private static String describe(Module module) {
        return module.isNamed() ? "module " + module.getName() : "the unnamed module (the class path)";
    }

    private static String flagValue(Module module) {
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }

    /** A reserved region: its segment, and the arena whose close unmaps it. */
    record Mapping(MemorySegment segment, Arena arena) {
    }

    /** Whether a refused mapping was logged: once per JVM (per copy of the library). */
    private static final java.util.concurrent.atomic.AtomicBoolean REFUSAL_LOGGED =
            new java.util.concurrent.atomic.AtomicBoolean();

    static boolean refusalLogged() {
        return REFUSAL_LOGGED.get();
    }

    /** The alignment of a region's start: {@link MemoryPool#HUGE_PAGE}, so that huge pages cover it from its first byte. */
    static final long REGION_ALIGNMENT = MemoryPool.HUGE_PAGE;

    /**
     * Reserves {@code byteSize} bytes (a multiple of {@link #PAGE}) of address space, starting
     * at a multiple of {@link #REGION_ALIGNMENT} (the mapping is made that much larger, and the
     * parts before and after the aligned range are unmapped again); null when the platform has
     * no regions or the kernel refuses the mapping (address space exhausted, strict overcommit):
     * the caller then allocates chunks.
     */
    static Mapping reserve(long byteSize) {
        if (!AVAILABLE || byteSize <= 0 || byteSize % PAGE != 0) {
            return null;
        }
        long mapped = byteSize + REGION_ALIGNMENT;
        long start;
        try {
            start = (long) MMAP.invokeExact(0L, mapped, PROT_READ_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("mmap of " + mapped + " bytes failed", t);
        }
        if (start == MAP_FAILED || start == 0) {
            if (REFUSAL_LOGGED.compareAndSet(false, true)) {
                System.getLogger(LOGGER).log(System.Logger.Level.WARNING, "SNode could not reserve a region of "
                        + mapped + " bytes of address space: mmap refused it (the process's address space is used up, "
                        + "often by runtimes that were never closed: close() unmaps their regions; or the kernel's "
                        + "overcommit policy is strict). An SNode whose region is refused keeps its cells in chunks "
                        + "(a chunk lookup per pointer level). Logged once per JVM.");
            }
            return null;
        }
        long address = (start + REGION_ALIGNMENT - 1) & -REGION_ALIGNMENT;
        if (address > start) {
            unmap(start, address - start);
        }
        long tail = start + mapped - (address + byteSize);
        if (tail > 0) {
            unmap(address + byteSize, tail);
        }
        // Base pages until the pool asks for huge pages (see the class comment). A kernel without
        // transparent huge pages answers EINVAL: it has none to give, so the answer is not checked.
        try {
            madvise(address, byteSize, MADV_NOHUGEPAGE);
        } catch (RuntimeException failed) {
            unmap(address, byteSize); // the call failed: nothing stays mapped
            throw failed;
        }
        Arena arena = Arena.ofShared();
        return new Mapping(MemorySegment.ofAddress(address).reinterpret(byteSize, arena, segment -> unmap(address, byteSize)),
                arena);
    }

    /** Gives the pages of {@code [offset, offset + byteSize)} of {@code region} back; they read zero afterwards. */
    static void decommit(MemorySegment region, long offset, long byteSize) {
        if (byteSize <= 0) {
            return;
        }
        MemorySegment range = region.asSlice(offset, byteSize); // bounds- and liveness-checked
        int result = madvise(range.address(), byteSize, MADV_DONTNEED);
        if (result != 0) {
            // Only with an invalid range, which the slice above rules out; the pages stay
            // committed and read what they held, which the zeroing of recycled cells covers.
            throw new IllegalStateException("madvise(MADV_DONTNEED) returned " + result + " for " + range);
        }
    }

    /**
     * Asks the kernel to back {@code region} with transparent huge pages. True when it took the
     * advice (a kernel without them answers EINVAL: false, and the region keeps base pages); with
     * {@code /sys/kernel/mm/transparent_hugepage/enabled} at {@code never} it takes the advice
     * and still gives base pages.
     */
    static boolean adviseHugePages(MemorySegment region) {
        if (!AVAILABLE) {
            return false;
        }
        return madvise(region.address(), region.byteSize(), MADV_HUGEPAGE) == 0;
    }

    /** {@code madvise(address, byteSize, advice)}: 0 when the kernel took the advice. */
    private static int madvise(long address, long byteSize, int advice) {
        try {
            return (int) MADVISE.invokeExact(address, byteSize, advice);
        } catch (Throwable t) {
            throw new IllegalStateException("madvise(" + advice + ") of " + byteSize + " bytes failed", t);
        }
    }

    /**
     * Bytes of the pages that hold {@code [offset, offset + byteSize)} of {@code region} and
     * are committed to this process now (a page of the range's edge counts whole): from
     * {@code /proc/self/pagemap}, the pages present and mapped by this process alone, or
     * swapped out. A page only read was never committed: the kernel maps it to the shared zero
     * page, which {@code mincore} reports resident and this does not count. Where that file
     * cannot be read (a sandbox without {@code /proc}), the pages {@code mincore} reports
     * resident, which then include pages only read.
     */
    static long residentBytes(MemorySegment region, long offset, long byteSize) {
        if (byteSize <= 0) {
            return 0;
        }
        MemorySegment range = region.asSlice(offset, byteSize); // bounds- and liveness-checked
        long start = range.address() & -PAGE;
        long end = (range.address() + byteSize + PAGE - 1) & -PAGE;
        long pages = (end - start) / PAGE;
        if (pagemapReadable) {
            try {
                return committedPages(start, pages) * PAGE;
            } catch (FileNotFoundException | SecurityException e) {
                pagemapReadable = false; // no /proc/self/pagemap here: mincore from now on
            } catch (IOException e) {
                // a read that failed this once: mincore this once
            }
        }
        long resident = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(Math.min(pages, 1L << 20));
            for (long page = 0; page < pages; page += vector.byteSize()) {
                long n = Math.min(vector.byteSize(), pages - page);
                int result;
                try {
                    result = (int) MINCORE.invokeExact(start + page * PAGE, n * PAGE, vector);
                } catch (Throwable t) {
                    throw new IllegalStateException("mincore of " + n * PAGE + " bytes failed", t);
                }
                if (result != 0) {
                    throw new IllegalStateException("mincore returned " + result + " for " + range);
                }
                for (long p = 0; p < n; p++) {
                    resident += vector.get(ValueLayout.JAVA_BYTE, p) & 1;
                }
            }
        }
        return resident * PAGE;
    }

    /** Whether {@code /proc/self/pagemap} has been read (or not tried yet); false after it failed once. */
    private static volatile boolean pagemapReadable = true;
    private static final File PAGEMAP = new File("/proc/self/pagemap");
    /** Entries of {@code /proc/self/pagemap} (one 64-bit word per page) read at a time. */
    private static final int PAGEMAP_ENTRIES = 1 << 16;
    private static final long PAGEMAP_PRESENT = 1L << 63;
    private static final long PAGEMAP_SWAPPED = 1L << 62;
    private static final long PAGEMAP_EXCLUSIVE = 1L << 56;

    /**
     * Pages from address {@code start} on, {@code pages} of them, that {@code /proc/self/pagemap}
     * says are present and mapped exclusively (bits 63 and 56: the shared zero page that a read
     * of an untouched page maps is present, not exclusive) or swapped out (bit 62).
     */
    private static long committedPages(long start, long pages) throws IOException {
        long committed = 0;
        // A RandomAccessFile, not a FileChannel: an interrupt of the calling thread does not stop
        // its reads (a channel would close itself and throw), and the thread keeps its interrupt.
        try (RandomAccessFile pagemap = new RandomAccessFile(PAGEMAP, "r")) {
            byte[] bytes = new byte[Math.toIntExact(Math.min(pages, PAGEMAP_ENTRIES) * Long.BYTES)];
            ByteBuffer entries = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
            for (long page = 0; page < pages; ) {
                int length = Math.toIntExact(Math.min(pages - page, PAGEMAP_ENTRIES) * Long.BYTES);
                pagemap.seek((start / PAGE + page) * Long.BYTES);
                pagemap.readFully(bytes, 0, length); // EOFException (an IOException) where the file ends
                entries.clear().limit(length);
                while (entries.hasRemaining()) {
                    long entry = entries.getLong();
                    if ((entry & (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE)) == (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE)
                            || (entry & PAGEMAP_SWAPPED) != 0) {
                        committed++;
                    }
                    page++;
                }
            }
        }
        return committed;
    }

    private static void unmap(long address, long byteSize) {
        try {
            int ignored = (int) MUNMAP.invokeExact(address, byteSize);
        } catch (Throwable t) {
            throw new IllegalStateException("munmap of " + byteSize + " bytes failed", t);
        }
    }
}
