import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/*
 * What the `kafka` tests ask of a real broker that neither kcat nor pmrag
 * can: topics created with their configuration, the cluster's size, and
 * each partition's log-start and end offsets (the log-start offset is what
 * retention and compaction move). Written for tests/kafka/broker.sh, which
 * compiles it once against the broker's own kafka-clients jar. One command
 * per run, answers on stdout, errors on stderr and exit 1:
 *
 *   KafkaAdmin BOOTSTRAP nodes N SECONDS
 *       waits until N brokers are registered and each answers; prints N
 *   KafkaAdmin BOOTSTRAP create NAME:PARTITIONS:REPLICAS[:KEY=VALUE,...] ...
 *       creates the topics (an existing one is an error) and waits until
 *       every partition has a leader; one line per topic
 *   KafkaAdmin BOOTSTRAP offsets TOPIC
 *       one line per partition: PARTITION LOG_START END
 *   KafkaAdmin BOOTSTRAP leaders TOPIC
 *       one line per partition: PARTITION LEADER ISR,...
 */
public final class KafkaAdmin {
    private KafkaAdmin() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            usage();
        }
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        try (Admin a = Admin.create(p)) {
            switch (args[1]) {
                case "nodes":
                    nodes(a, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
                    break;
                case "create":
                    create(a, args);
                    break;
                case "offsets":
                    offsets(a, args[2]);
                    break;
                case "leaders":
                    leaders(a, args[2]);
                    break;
                default:
                    usage();
            }
        } catch (ExecutionException e) {
            System.err.println("KafkaAdmin " + args[1] + ": " + e.getCause());
            System.exit(1);
        }
    }

    private static void usage() {
        System.err.println("usage: KafkaAdmin BOOTSTRAP nodes N SECONDS | create NAME:P:R[:K=V,...]... "
                           + "| offsets TOPIC | leaders TOPIC");
        System.exit(2);
    }

    private static void nodes(Admin a, int want, int seconds) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int have = -1;
        while (System.nanoTime() < end) {
            try {
                have = a.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
                if (have >= want) {
                    System.out.println(have);
                    return;
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // Not up yet: the bootstrap broker refuses or does not answer.
            }
            Thread.sleep(200);
        }
        System.err.println("KafkaAdmin nodes: " + have + " of " + want + " brokers after " + seconds + " s");
        System.exit(1);
    }

    private static void create(Admin a, String[] args) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] f = args[i].split(":", 4);
            if (f.length < 3) {
                usage();
            }
            NewTopic t = new NewTopic(f[0], Integer.parseInt(f[1]), Short.parseShort(f[2]));
            if (f.length == 4 && !f[3].isEmpty()) {
                Map<String, String> cfg = new HashMap<>();
                for (String kv : f[3].split(",")) {
                    String[] x = kv.split("=", 2);
                    cfg.put(x[0], x[1]);
                }
                t.configs(cfg);
            }
            topics.add(t);
        }
        a.createTopics(topics).all().get();
        // Created is not yet led everywhere: wait until the metadata the
        // clients will see gives every partition a leader.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (NewTopic t : topics) {
            while (true) {
                TopicDescription d = a.describeTopics(List.of(t.name())).allTopicNames().get().get(t.name());
                boolean led = d.partitions().size() == t.numPartitions();
                for (TopicPartitionInfo pi : d.partitions()) {
                    led = led && pi.leader() != null && pi.isr().size() == t.replicationFactor();
                }
                if (led) {
                    break;
                }
                if (System.nanoTime() > end) {
                    System.err.println("KafkaAdmin create: " + t.name() + " has partitions without a leader after 30 s");
                    System.exit(1);
                }
                Thread.sleep(100);
            }
            System.out.println("created " + t.name() + " partitions " + t.numPartitions() + " replicas "
                               + t.replicationFactor() + (t.configs() == null ? "" : " " + new TreeMap<>(t.configs())));
        }
    }

    private static void offsets(Admin a, String topic) throws Exception {
        TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        Map<TopicPartition, OffsetSpec> first = new HashMap<>();
        Map<TopicPartition, OffsetSpec> last = new HashMap<>();
        for (TopicPartitionInfo pi : d.partitions()) {
            TopicPartition tp = new TopicPartition(topic, pi.partition());
            first.put(tp, OffsetSpec.earliest());
            last.put(tp, OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> s = a.listOffsets(first).all().get();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e = a.listOffsets(last).all().get();
        for (TopicPartitionInfo pi : d.partitions()) {
            TopicPartition tp = new TopicPartition(topic, pi.partition());
            System.out.println(pi.partition() + " " + s.get(tp).offset() + " " + e.get(tp).offset());
        }
    }

    private static void leaders(Admin a, String topic) throws Exception {
        TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        for (TopicPartitionInfo pi : d.partitions()) {
            StringBuilder isr = new StringBuilder();
            pi.isr().forEach(n -> isr.append(isr.length() == 0 ? "" : ",").append(n.id()));
            System.out.println(pi.partition() + " " + (pi.leader() == null ? -1 : pi.leader().id()) + " " + isr);
        }
    }
}
