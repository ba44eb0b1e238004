package io.snode.runtime.testing;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one {@link System.Logger} (here backed by {@code java.util.logging}) receives while
 * it is open, and a bounded way to wait for one that follows the garbage collector's reference
 * handling: {@link #collectUntilLogged}.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private final java.util.logging.Level previousLevel;

    public LogCapture(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
        this.previousLevel = logger.getLevel();
        logger.addHandler(handler);
    }

    private Runnable afterEachCollection = () -> { };

    /** Runs {@code action} after each collection of {@link #collectUntilLogged} (what turns what the collector found into records). */
    public LogCapture afterEachCollection(Runnable action) {
        this.afterEachCollection = action;
        return this;
    }

    /** Lets records of every level through the logger (DEBUG ones included) until {@link #close()}. */
    public LogCapture everyLevel() {
        logger.setLevel(java.util.logging.Level.ALL);
        return this;
    }

    /** The records so far. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The records so far whose message contains {@code text}. */
    public List<LogRecord> recordsContaining(String text) {
        return records.stream().filter(record -> record.getMessage() != null && record.getMessage().contains(text)).toList();
    }

    /**
     * Collects garbage (up to 200 times) until a record contains {@code text}; that record, or
     * an {@link AssertionError}. After each collection it waits (at most 1 s) until the JVM's
     * reference handler has enqueued a phantom reference to an object dropped before it, so
     * that references the same collection found are enqueued too, then runs
     * {@link #afterEachCollection}, which may turn them into records on this thread.
     */
    public LogRecord collectUntilLogged(String text) {
        return collectUntilLogged(text, 1).get(0);
    }

    /**
     * Collects garbage as {@link #collectUntilLogged(String)} does until {@code count} records
     * contain {@code text}; those records, or an {@link AssertionError}.
     */
    public List<LogRecord> collectUntilLogged(String text, int count) {
        for (int n = 0; n < 200; n++) {
            List<LogRecord> found = recordsContaining(text);
            if (found.size() >= count) {
                return found;
            }
            collectAndAwaitReferenceHandling();
            afterEachCollection.run();
        }
        throw new AssertionError("fewer than " + count + " records containing " + text + " after 200 collections; records: "
                + records.stream().map(LogRecord::getMessage).toList());
    }

    /**
     * Collects garbage and waits (at most 1 s) until the JVM's reference handler has enqueued a
     * phantom reference to an object dropped before: references the same collection found are
     * then enqueued too (mostly; callers loop).
     */
    public static void collectAndAwaitReferenceHandling() {
        ReferenceQueue<Object> handled = new ReferenceQueue<>();
        PhantomReference<Object> dropped = new PhantomReference<>(new Object(), handled);
        System.gc();
        byte[][] garbage = new byte[64][];
        for (int g = 0; g < garbage.length; g++) {
            garbage[g] = new byte[1 << 16];
        }
        try {
            handled.remove(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the reference handler", e);
        }
        Reference.reachabilityFence(dropped);
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(previousLevel);
    }
}
