package lake.catalog.model;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A purge job's stored form: its phase round-trips, and a job stored before phases resumes safely. */
class PurgeJobTest {
    static final String KEY = CatalogKeys.purgeJob("robots", "episodes", "inc-1");

    static PurgeJob parse(String json) {
        return PurgeJob.parse(KEY, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void thePhaseRoundTripsAndAClaimRecordsIt() {
        PurgeJob queued = PurgeJob.queued("robots", "episodes", "inc-1", PurgeJob.Reason.REQUESTED, 1L);
        assertThat(queued.phase()).isEqualTo(PurgeJob.Phase.DATA);
        PurgeJob claimed = queued.claimed(7, PurgeJob.Phase.MANIFEST_LISTS, null, 1000).progressed("s3://b/t/metadata/snap-1.avro", 1, 0);
        PurgeJob read = PurgeJob.parse(KEY, claimed.encode());
        assertThat(read).isEqualTo(claimed);
        assertThat(new String(claimed.encode(), StandardCharsets.UTF_8)).contains("\"phase\":\"manifest_lists\"");
        assertThatThrownBy(() -> parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"purging\",\"epoch\":7,\"phase\":\"sideways\","
                + "\"batches\":1,\"deleted\":0}")).hasMessageContaining("phase");
    }

    @Test
    void aJobFromBeforePhasesResumesByListingOnceClaimed() {
        assertThat(parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"queued\",\"batches\":0,\"deleted\":0}").phase())
                .as("nothing claimed: it may start at the data files").isEqualTo(PurgeJob.Phase.DATA);
        assertThat(parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"purging\",\"epoch\":7,\"batches\":1,\"deleted\":0}").phase())
                .as("claimed, nothing recorded: an earlier build may have deleted in listing order").isEqualTo(PurgeJob.Phase.LISTING);
        PurgeJob resumed = parse("{\"reason\":\"retention\",\"queued_ms\":1,\"state\":\"purging\",\"epoch\":7,\"batches\":3,\"deleted\":2000,"
                + "\"after\":\"s3://b/t/data/f-0999\"}");
        assertThat(resumed.phase()).isEqualTo(PurgeJob.Phase.LISTING);
        assertThat(resumed.after()).as("its listing's resume point").isEqualTo("s3://b/t/data/f-0999");
    }

    @Test
    void filesLeftOutsideTheLocationAddUpAcrossBatchesAndPasses() {
        PurgeJob job = PurgeJob.queued("robots", "episodes", "inc-1", PurgeJob.Reason.REQUESTED, 1L)
                .claimed(7, PurgeJob.Phase.DATA, null, 1000).progressed("s3://b/t/data/a", 900, 100)
                .claimed(8, PurgeJob.Phase.DATA, "s3://b/t/data/a", 1000).progressed("s3://b/t/data/b", 999, 1);
        PurgeJob read = PurgeJob.parse(KEY, job.encode());
        assertThat(read.outside()).as("counted by two leaders' batches, kept in the job").isEqualTo(101);
        assertThat(read.deleted()).isEqualTo(1899);
        assertThat(parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"queued\",\"batches\":0,\"deleted\":0}").outside())
                .as("a job stored before the count").isZero();
        assertThatThrownBy(() -> parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"queued\",\"batches\":0,\"deleted\":0,"
                + "\"outside\":-1}")).hasMessageContaining("outside");
    }

    @Test
    void aClaimRecordsItsBatchSizeForTheNextLeadersLookUp() {
        PurgeJob job = PurgeJob.queued("robots", "episodes", "inc-1", PurgeJob.Reason.REQUESTED, 1L)
                .claimed(7, PurgeJob.Phase.DATA, null, 4).progressed("s3://b/t/data/a", 4, 0);
        assertThat(PurgeJob.parse(KEY, job.encode()).batchFiles()).as("kept by a record after the claim").isEqualTo(4);
        assertThat(PurgeJob.parse(KEY, job.claimed(8, PurgeJob.Phase.DATA, "s3://b/t/data/a", 1000).encode()).batchFiles())
                .as("the last claimer's size").isEqualTo(1000);
        assertThat(parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"purging\",\"epoch\":7,\"batches\":1,\"deleted\":0,"
                + "\"phase\":\"data\"}").batchFiles()).as("a job stored before sizes were recorded: unknown").isZero();
        assertThatThrownBy(() -> parse("{\"reason\":\"requested\",\"queued_ms\":1,\"state\":\"queued\",\"batches\":0,\"deleted\":0,"
                + "\"batch_files\":-4}")).hasMessageContaining("batch_files");
        assertThatThrownBy(() -> job.claimed(8, PurgeJob.Phase.DATA, null, 0)).hasMessageContaining("at least one file");
    }
}
