package io.fedbridge.discovery.multicast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.testing.Fuzz;
import io.fedbridge.discovery.multicast.MulticastSecret;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the datagram decoder with random bytes, with token soup (the format's own words and separators in random
 * order) and with valid datagrams, signed and unsigned, mutated at random. Each datagram goes through
 * {@link AnnouncementHandler} in an {@link EmbeddedChannel} as a pooled direct buffer, as from the socket. For every
 * one: the decoder returns a value and never throws, a rejection names its problem, the packet is released, an
 * accepted unsigned announcement survives a round trip, and no mutation of a signed datagram is accepted as
 * anything but the original. Decoding time grows linearly with the datagram.
 *
 * <p>Two thousand tries per property in an ordinary build (a few seconds), the same inputs every time (see
 * {@link Fuzz}); with {@code -Dfedbridge.soak=true} fifty times as many.
 */
class AnnouncementCodecFuzzTest {

    private static final int TRIES = 2_000;
    private static final MulticastSecret SECRET = MulticastSecret.of("fuzzing-secret-0123456789");
    private static final AnnouncementCodec SIGNED = new AnnouncementCodec(SECRET);
    private static final AnnouncementCodec UNSIGNED = new AnnouncementCodec(null);
    private static final InetSocketAddress SENDER = new InetSocketAddress("127.0.0.1", 6155);
    private static final InetSocketAddress GROUP = new InetSocketAddress("239.255.2.3", 6155);

    /** The format's own words and separators, and things that trouble parsers. */
    private static final List<String> TOKENS = List.of("FEDBRIDGE1", "FEDBRIDGE2", "FEDBRIDGE", "ALIVE", "DEAD", " ",
            "  ", ",", "%", "%2", "%20", "%2C", "%7F", "%80", "%zz", "%%", "tcp://", "ssl://", "vm://", "failover:(",
            "(", ")", "[", "]", "[::1]", "::", ":", ":61613", ":0", ":99999", "?", "&", "=", "a=b", "/", "0", "1",
            "500", "3600001", "-1", "9999999999999999999", "0123456789abcdef", "-_", "AAAA", "\n", "\t", "\u0000",
            "\u007f", "é", "\uD83D\uDE00", "\uFFFD", "h", "host.example", "127.0.0.1");

    // ---------------------------------------------------------------------------------------------
    // Properties

    @Test
    void randomBytesAreRejectedAsValuesAndReleased() {
        Fuzz.run("randomBytesAreRejectedAsValuesAndReleased", Fuzz.tries(TRIES), random -> checkBoth(noise(random)));
    }

    @Test
    void tokenSoupIsDecodedOrRejectedAsValuesAndReleased() {
        Fuzz.run("tokenSoupIsDecodedOrRejectedAsValuesAndReleased", Fuzz.tries(TRIES), random ->
                checkBoth(soup(random).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void mutatedDatagramsAreRejectedAsValuesAndNeverForged() {
        Fuzz.run("mutatedDatagramsAreRejectedAsValuesAndNeverForged", Fuzz.tries(TRIES), random -> {
            Mutated m = mutated(random);
            check(m.signed() ? SIGNED : UNSIGNED, m.original(), m.bytes());
            check(m.signed() ? UNSIGNED : SIGNED, null, m.bytes());
        });
    }

    // ---------------------------------------------------------------------------------------------
    // Linear time

    /**
     * Inputs built to make a careless parser backtrack or rescan (many separators, escapes, brackets), at the
     * largest size the decoder reads and at a tenth of it: ten times the input may cost about ten times the time,
     * never the hundredfold of a quadratic decoder. Larger inputs are rejected before any work.
     */
    @Test
    void decodesInTimeLinearInTheDatagram() {
        List<String> units = List.of("%", ",", " ", "%2", "[", "(", ":", "tcp://[", "a,", "%41", "?a=b&", "é");
        for (String unit : units) {
            for (AnnouncementCodec codec : List.of(SIGNED, UNSIGNED)) {
                byte[] small = adversarial(unit, AnnouncementCodec.MAX_BYTES / 10);
                byte[] large = adversarial(unit, AnnouncementCodec.MAX_BYTES);
                long smallNanos = medianNanos(codec, small);
                long largeNanos = medianNanos(codec, large);
                assertThat(largeNanos).as("decoding %s bytes of '%s' took %s ns, %s bytes took %s ns", large.length, unit,
                        largeNanos, small.length, smallNanos).isLessThan(Math.max(smallNanos, 2_000) * 40);
            }
        }
        byte[] huge = adversarial("%", 1 << 20);
        long hugeNanos = medianNanos(UNSIGNED, huge);
        assertThat(hugeNanos).as("a 1 MiB datagram is rejected by its size alone").isLessThan(1_000_000);
    }

    /** A datagram of at most {@code size} bytes: a valid-looking head, then {@code unit} repeated in the URI field. */
    private static byte[] adversarial(String unit, int size) {
        String head = "FEDBRIDGE2 ALIVE g id n 500 tcp://h:1";
        int unitBytes = unit.getBytes(StandardCharsets.UTF_8).length;
        return (head + unit.repeat((size - head.length()) / unitBytes)).getBytes(StandardCharsets.UTF_8);
    }

    /** The median time of decoding {@code datagram}, after warming up. */
    private static long medianNanos(AnnouncementCodec codec, byte[] datagram) {
        for (int i = 0; i < 2_000; i++) {
            codec.decode(datagram);
        }
        long[] samples = new long[201];
        for (int i = 0; i < samples.length; i++) {
            long start = System.nanoTime();
            for (int j = 0; j < 10; j++) {
                codec.decode(datagram);
            }
            samples[i] = (System.nanoTime() - start) / 10;
        }
        Arrays.sort(samples);
        return samples[samples.length / 2];
    }

    // ---------------------------------------------------------------------------------------------
    // Checks

    private static void checkBoth(byte[] datagram) {
        check(SIGNED, null, datagram);
        check(UNSIGNED, null, datagram);
    }

    /**
     * Decodes {@code datagram} as the socket would hand it over and checks the result; {@code original} is the
     * announcement a signed datagram was made from, if it was.
     */
    private static void check(AnnouncementCodec codec, Original original, byte[] datagram) {
        AnnouncementCodec.Decoded decoded = throughHandler(codec, datagram);
        assertThat(decoded).isNotNull();
        if (decoded instanceof AnnouncementCodec.Invalid invalid) {
            assertThat(invalid.problem()).isNotNull();
            assertThat(invalid.reason()).isNotBlank().doesNotContain("\n", "\r", "\u0000");
            return;
        }
        AnnouncementCodec.Valid valid = (AnnouncementCodec.Valid) decoded;
        if (codec.isSigning()) {
            assertThat(valid.seal()).isNotNull();
            assertThat(original).as("a signed datagram that was never signed").isNotNull();
            assertThat(valid.announcement()).as("a mutation still verifies, so it must change nothing")
                    .isEqualTo(original.announcement());
            assertThat(valid.seal()).isEqualTo(original.seal());
        } else {
            assertThat(valid.seal()).isNull();
            assertThat(UNSIGNED.decode(UNSIGNED.encode(valid.announcement(), null))).as("round trip")
                    .isEqualTo(new AnnouncementCodec.Valid(valid.announcement(), null));
        }
    }

    /** The handler's view: the datagram in a pooled direct buffer; checks that the packet is released. */
    private static AnnouncementCodec.Decoded throughHandler(AnnouncementCodec codec, byte[] datagram) {
        List<AnnouncementCodec.Decoded> results = RESULTS.get();
        results.clear();
        EmbeddedChannel channel = (codec.isSigning() ? SIGNED_CHANNEL : UNSIGNED_CHANNEL).get();
        ByteBuf content = PooledByteBufAllocator.DEFAULT.directBuffer(datagram.length).writeBytes(datagram);
        DatagramPacket packet = new DatagramPacket(content, GROUP, SENDER);
        assertThat(channel.writeInbound(packet)).as("nothing passed on").isFalse();
        channel.checkException();
        assertThat(packet.refCnt()).as("the packet is released").isZero();
        assertThat(results).hasSize(1);
        return results.get(0);
    }

    private static final ThreadLocal<List<AnnouncementCodec.Decoded>> RESULTS = ThreadLocal.withInitial(ArrayList::new);
    private static final ThreadLocal<EmbeddedChannel> SIGNED_CHANNEL = ThreadLocal.withInitial(() -> channel(SIGNED));
    private static final ThreadLocal<EmbeddedChannel> UNSIGNED_CHANNEL = ThreadLocal.withInitial(() -> channel(UNSIGNED));

    private static EmbeddedChannel channel(AnnouncementCodec codec) {
        return new EmbeddedChannel(new AnnouncementHandler((buffer, sender) -> RESULTS.get().add(codec.decode(buffer))));
    }

    // ---------------------------------------------------------------------------------------------
    // Generators

    private static byte[] noise(Random random) {
        return Fuzz.bytes(random, AnnouncementCodec.MAX_BYTES + 100);
    }

    private static String soup(Random random) {
        return Fuzz.concat(random, 0, 120, r -> Fuzz.pick(r, TOKENS));
    }

    /** A sealed announcement, kept to compare with what a mutation of it decodes to. */
    record Original(Announcement announcement, AnnouncementCodec.Seal seal) {
    }

    record Mutated(boolean signed, Original original, byte[] bytes) {
        @Override
        public String toString() {
            return (signed ? "signed " : "unsigned ") + new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /**
     * One change to a datagram; positions are fractions of its length, so they fit any datagram. Kinds 0 to 6 work
     * on bytes (flip a bit, set, insert, delete, duplicate, truncate, insert a token), 7 to 9 on the space-separated
     * fields (empty one, drop a separator, double one).
     */
    record Mutation(int kind, double at, double length, int value, String token) {
        byte[] apply(byte[] in) {
            int n = in.length;
            int pos = (int) (at * n);
            int len = Math.min(n - pos, 1 + (int) (length * 8));
            if (kind >= 7) {
                return applyToFields(in);
            }
            return switch (kind) {
                case 0 -> n == 0 ? in : with(in, pos == n ? n - 1 : pos, (byte) (in[pos == n ? n - 1 : pos] ^ (1 << (value & 7))));
                case 1 -> n == 0 ? in : with(in, pos == n ? n - 1 : pos, (byte) value);
                case 2 -> concat(Arrays.copyOfRange(in, 0, pos), new byte[] {(byte) value}, Arrays.copyOfRange(in, pos, n));
                case 3 -> concat(Arrays.copyOfRange(in, 0, pos), new byte[0], Arrays.copyOfRange(in, Math.min(n, pos + len), n));
                case 4 -> concat(Arrays.copyOfRange(in, 0, pos + len), Arrays.copyOfRange(in, pos, pos + len),
                        Arrays.copyOfRange(in, pos + len, n));
                case 5 -> Arrays.copyOf(in, pos);
                default -> concat(Arrays.copyOfRange(in, 0, pos), token.getBytes(StandardCharsets.UTF_8),
                        Arrays.copyOfRange(in, pos, n));
            };
        }

        private byte[] applyToFields(byte[] in) {
            List<Integer> spaces = new ArrayList<>();
            for (int i = 0; i < in.length; i++) {
                if (in[i] == ' ') {
                    spaces.add(i);
                }
            }
            if (spaces.isEmpty()) {
                return in;
            }
            int k = (int) (at * spaces.size()) % spaces.size();
            int space = spaces.get(k);
            return switch (kind) {
                case 7 -> {
                    int end = k + 1 < spaces.size() ? spaces.get(k + 1) : in.length;
                    yield concat(Arrays.copyOfRange(in, 0, space + 1), new byte[0], Arrays.copyOfRange(in, end, in.length));
                }
                case 8 -> concat(Arrays.copyOfRange(in, 0, space), new byte[0], Arrays.copyOfRange(in, space + 1, in.length));
                default -> concat(Arrays.copyOfRange(in, 0, space), new byte[] {' '}, Arrays.copyOfRange(in, space, in.length));
            };
        }

        private static byte[] with(byte[] in, int pos, byte b) {
            byte[] out = in.clone();
            out[pos] = b;
            return out;
        }

        private static byte[] concat(byte[] a, byte[] b, byte[] c) {
            byte[] out = Arrays.copyOf(a, a.length + b.length + c.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            System.arraycopy(c, 0, out, a.length + b.length, c.length);
            return out;
        }
    }

    private static Mutated mutated(Random random) {
        boolean signed = random.nextBoolean();
        Announcement a = announcement(random);
        AnnouncementCodec.Seal s = new AnnouncementCodec.Seal(Fuzz.between(random, 0, 999_999_999_999_999L),
                Fuzz.anyLong(random), Fuzz.between(random, 1, 999_999_999_999_999_999L));
        byte[] bytes = (signed ? SIGNED : UNSIGNED).encode(a, s);
        for (Mutation m : Fuzz.list(random, 1, 4, AnnouncementCodecFuzzTest::mutation)) {
            bytes = m.apply(bytes);
        }
        return new Mutated(signed, signed ? new Original(a, s) : null, bytes);
    }

    private static Mutation mutation(Random random) {
        return new Mutation(Fuzz.between(random, 0, 9), fraction(random), fraction(random),
                Fuzz.between(random, 0, 255), Fuzz.pick(random, TOKENS));
    }

    /** From 0 to 1, both included; each end one time in ten. */
    private static double fraction(Random random) {
        return Fuzz.oneIn(random, 5) ? Fuzz.pick(random, 0.0, 1.0) : random.nextDouble();
    }

    private static Announcement announcement(Random random) {
        return new Announcement(Fuzz.pick(random, Announcement.Type.class), field(random), field(random), field(random),
                Duration.ofMillis(Fuzz.between(random, 1, 3_600_000L)),
                Fuzz.list(random, 1, 3, AnnouncementCodecFuzzTest::uri));
    }

    private static String field(Random random) {
        return Fuzz.string(random, "ab-_.\u00e9 ,%\n\u007f", 1, 24);
    }

    private static String uri(Random random) {
        return Fuzz.pick(random, "tcp", "ssl") + "://" + Fuzz.string(random, "abcxyz019.-", 1, 20) + ":"
                + Fuzz.between(random, 1, 65535) + Fuzz.pick(random, "", "?a=b", "?x=1,2&y=%25");
    }
}
