package lake.node;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.json.JsonObject;
import lake.security.Audit;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Captures every log line of the process while open: the audit lines (as JSON) and all the
 * others, so a test can assert what was audited and that no secret reached any line.
 */
public final class AuditLog implements AutoCloseable {
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    public AuditLog() {
        appender.start();
        root.addAppender(appender);
    }

    /** The audit lines so far, parsed. */
    public List<JsonObject> lines() {
        return events().stream().filter(e -> e.getLoggerName().equals(Audit.LOGGER))
                .map(e -> new JsonObject(e.getFormattedMessage())).toList();
    }

    /** The audit lines of {@code event} ("refused", "admin", "reload") so far. */
    public List<JsonObject> lines(String event) {
        return lines().stream().filter(l -> event.equals(l.getString("event"))).toList();
    }

    /** Asserts that no log line (message or exception) so far contains any of {@code secrets}. */
    public void assertNoLineContains(String... secrets) {
        for (ILoggingEvent e : events()) {
            String text = e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage());
            for (String secret : secrets) assertThat(text).as("log line of " + e.getLoggerName()).doesNotContain(secret);
        }
    }

    /** A copy of the events so far; logback appends under the appender's lock, so copy under it too. */
    private List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
    }
}
