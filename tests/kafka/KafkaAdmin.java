import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

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
 *   KafkaAdmin BOOTSTRAP alter TOPIC KEY=VALUE,...
 *       sets topic configuration keys (incrementalAlterConfigs)
 *   KafkaAdmin BOOTSTRAP produce TOPIC
 *       KEY<TAB>VALUE lines of stdin to TOPIC (UTF-8), idempotent, acks=all,
 *       each retried for up to 5 minutes; prints how many, exit 1 if any
 *       failed. kcat gives up as soon as every broker is down: this one
 *       keeps going across a broker restart.
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
                case "alter":
                    alter(a, args[2], args[3]);
                    break;
                case "produce":
                    produce(args[0], args[2]);
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
                           + "| offsets TOPIC | leaders TOPIC | alter TOPIC K=V,...");
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
                boolean led;
                try {
                    TopicDescription d = a.describeTopics(List.of(t.name())).allTopicNames().get().get(t.name());
                    led = d.partitions().size() == t.numPartitions();
                    for (TopicPartitionInfo pi : d.partitions()) {
                        led = led && pi.leader() != null && pi.isr().size() == t.replicationFactor();
                    }
                } catch (ExecutionException e) {
                    // The node asked has not seen the creation yet (its
                    // metadata lags the controller's): ask again.
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                    led = false;
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

    private static void alter(Admin a, String topic, String kvs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (String kv : kvs.split(",")) {
            String[] x = kv.split("=", 2);
            ops.add(new AlterConfigOp(new ConfigEntry(x[0], x[1]), AlterConfigOp.OpType.SET));
        }
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        a.incrementalAlterConfigs(Map.of(r, ops)).all().get();
        System.out.println("altered " + topic + " " + kvs);
    }

    private static void produce(String boot, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, boot);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        AtomicLong acked = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        long sent = 0;
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && failed.get() == null) {
                int tab = line.indexOf('\t');
                if (tab < 0) {
                    continue;
                }
                pr.send(new ProducerRecord<>(topic, line.substring(0, tab), line.substring(tab + 1)), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    } else {
                        acked.incrementAndGet();
                    }
                });
                sent++;
            }
            pr.flush();
        }
        System.out.println("produced " + acked.get() + " of " + sent + " to " + topic);
        if (failed.get() != null || acked.get() != sent) {
            System.err.println("KafkaAdmin produce: " + failed.get());
            System.exit(1);
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
