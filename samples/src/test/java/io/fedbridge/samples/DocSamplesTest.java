package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfigFile;
import io.fedbridge.core.bridge.BridgeConfig;
import io.fedbridge.core.bridge.BridgeFilterProvider;
import io.fedbridge.core.discovery.DiscoveryAgentProvider;
import io.fedbridge.core.discovery.DiscoveryAgents;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every code sample in README.md and docs/*.md is checked against the code, so that none goes stale:
 *
 * <ul>
 *   <li>each {@code ```java} block is compiled with {@code javax.tools} against the test class path (every module the
 *       docs describe, Camel and Spring included): a block with a top-level {@code class} as a compilation unit, one
 *       that starts with an annotation or a method as members of a class, any other as the statements of a method.
 *       The names the samples leave to the reader's code are declared once, in {@link #PRELUDE}: {@code broker},
 *       {@code meterRegistry}, {@code prometheusRegistry}, {@code process(String)}, {@code log(Throwable)};</li>
 *   <li>each {@code ```ini} block is parsed by {@link BrokerConfigFile#parse}, the configuration file's own parser;</li>
 *   <li>each complete {@code static:(…)} / {@code multicast://} URI (in inline code or a block) is parsed with the
 *       network connector's parsers and option binders — without starting anything — and each {@code failover:(…)}
 *       URI with {@link FailoverConfig#fromUri}. URIs with an ellipsis or a placeholder are skipped.</li>
 * </ul>
 *
 * A failure names the page and line of the sample and the compiler's or parser's message. Samples that mirror a
 * runnable class ({@code EmbeddedFederationSample}, {@code FailoverClientSample}, Camel's {@code SampleRoute}) are
 * run by those classes' own tests.
 */
class DocSamplesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final List<String> IMPORTS = List.of(
            "io.fedbridge.core.*", "io.fedbridge.core.bridge.*", "io.fedbridge.broker.*", "io.fedbridge.failover.*",
            "io.fedbridge.metrics.*", "io.fedbridge.ha.*", "io.fedbridge.jms.*", "io.fedbridge.camel.*",
            "jakarta.jms.ConnectionFactory", "jakarta.jms.JMSContext",
            "org.apache.camel.ExchangePattern", "org.apache.camel.builder.RouteBuilder",
            "org.springframework.context.annotation.Bean", "org.springframework.jms.connection.CachingConnectionFactory",
            "io.micrometer.core.instrument.MeterRegistry", "io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
            "java.nio.file.Path", "java.time.Duration", "java.util.*", "java.util.concurrent.*",
            // Single-type imports win over the wildcards above where two packages share a name.
            "io.fedbridge.core.Message");

    /** What statement and member samples may use without declaring it: the reader's own objects and methods. */
    static final String PRELUDE = """
                Broker broker;
                MeterRegistry meterRegistry;
                PrometheusMeterRegistry prometheusRegistry;
                void process(String body) { }
                void log(Throwable failure) { }
            """;

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)\\s*([\\w-]*)\\s*$");
    private static final Pattern TOP_LEVEL_CLASS = Pattern.compile("^(public\\s+|final\\s+|abstract\\s+)*(class|record|interface)\\s", Pattern.MULTILINE);
    private static final Pattern MEMBER_START = Pattern.compile("^\\s*(@\\w+|(public |protected |private |static )*[\\w<>\\[\\], ]+\\s+\\w+\\([^)]*\\)\\s*(throws [\\w., ]+)?\\{)");
    private static final Pattern NETWORK_URI = Pattern.compile("(?:static:\\([^()\\s\"'`]*\\)|multicast://)[^\\s\"'`]*");
    private static final Pattern FAILOVER_URI = Pattern.compile("failover:\\([^()\\s\"'`]*\\)[^\\s\"'`]*");

    record Block(Path page, int line, String language, String text) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    record Span(Path page, int line, String text) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    @Test
    void shouldCompileEveryJavaSampleInTheReadmeAndDocs() throws IOException {
        List<Block> java = blocks().stream().filter(b -> b.language().equals("java")).toList();
        assertThat(java).as("java samples found").hasSizeGreaterThan(5);

        List<String> problems = compile(java);

        assertThat(problems).as("java samples that do not compile").isEmpty();
    }

    @Test
    void shouldParseEveryConfigurationFileSample(@TempDir Path dir) throws IOException {
        List<Block> ini = blocks().stream().filter(b -> b.language().equals("ini")).toList();
        assertThat(ini).as("configuration file samples found").isNotEmpty();

        List<String> problems = new ArrayList<>();
        for (Block b : ini) {
            try {
                BrokerConfigFile.parse(b.text(), b.where(), dir).build();
            } catch (RuntimeException e) {
                problems.add(b.where() + ": " + e.getMessage());
            }
        }

        assertThat(problems).as("configuration samples the parser refuses").isEmpty();
    }

    @Test
    void shouldParseEveryNetworkConnectorAndFailoverUriInTheReadmeAndDocs() throws IOException {
        List<Span> uris = new ArrayList<>();
        for (Span s : codeSpans()) {
            find(NETWORK_URI, s, uris);
            find(FAILOVER_URI, s, uris);
        }
        assertThat(uris).as("URIs found").hasSizeGreaterThan(10);

        List<String> problems = new ArrayList<>();
        for (Span u : uris) {
            try {
                if (u.text().startsWith("failover:")) {
                    FailoverConfig.fromUri(u.text());
                } else {
                    checkNetworkConnectorUri(u.text());
                }
            } catch (RuntimeException e) {
                problems.add(u.where() + ": " + u.text() + ": " + e.getMessage());
            }
        }

        assertThat(problems).as("URIs the parsers refuse").isEmpty();
    }

    @Test
    void shouldNameThePageAndLineOfABrokenSample() {
        Block broken = new Block(ROOT.resolve("docs/example.md"), 41, "java",
                "StompConnection c = StompConnection.connect(\"tcp://h:1\");\nc.noSuchMethod();\n");

        List<String> problems = compile(List.of(broken));

        assertThat(problems).singleElement().asString().startsWith("docs/example.md:43: ").contains("noSuchMethod");
        assertThat(catchNetworkProblem("static:(tcp://b:61613)?networkTTLL=2")).contains("networkTTLL");
    }

    private static String catchNetworkProblem(String uri) {
        try {
            checkNetworkConnectorUri(uri);
            return "";
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    /**
     * What {@code NetworkConnector.start} does to a URI before it starts anything: the bridge options bound (values
     * checked), the filter providers' options handed to them, and the rest checked against the agent's options.
     */
    static void checkNetworkConnectorUri(String text) {
        CompositeUri uri = CompositeUri.parse(text);
        DiscoveryAgentProvider provider = DiscoveryAgents.provider(uri);
        String context = "network connector URI '" + text + "'";
        Map<String, String> rest = BridgeConfig.builder("vm://docs", "vm://peer").bind(uri.options(), context);
        Set<String> valid = new TreeSet<>(BridgeConfig.OPTION_NAMES);
        valid.addAll(provider.optionNames());
        for (BridgeFilterProvider fp : ServiceLoader.load(BridgeFilterProvider.class)) {
            Map<String, String> mine = new LinkedHashMap<>();
            rest.entrySet().removeIf(e -> fp.optionNames().contains(e.getKey()) && mine.put(e.getKey(), e.getValue()) == null);
            valid.addAll(fp.optionNames());
            fp.create(mine, context);
        }
        for (String key : rest.keySet()) {
            if (!provider.optionNames().contains(key)) {
                throw new IllegalArgumentException("unknown option '" + key + "' in " + context + "; valid options: " + valid);
            }
        }
    }

    private static void find(Pattern p, Span s, List<Span> into) {
        Matcher m = p.matcher(s.text());
        while (m.find()) {
            String u = m.group().replaceAll("[.,;:]+$", "");
            while (u.endsWith(")") && count(u, ')') > count(u, '(')) {
                u = u.substring(0, u.length() - 1); // the end of a sentence's or a RAW(...)'s parenthesis
            }
            if (!isSample(u)) {
                continue;
            }
            into.add(new Span(s.page(), s.line(), u));
        }
    }

    /** A URI to parse, not a pattern: no ellipsis or placeholder, a host, every broker a URI, every option a value. */
    private static boolean isSample(String u) {
        if (u.contains("…") || u.contains("...") || u.contains("NAME") || u.contains("URI") || u.contains("HOST")
                || u.endsWith("=") || u.endsWith("?") || u.endsWith("://")) {
            return false;
        }
        int open = u.indexOf('(');
        int close = u.lastIndexOf(')');
        if (open >= 0 && close > open) {
            for (String broker : u.substring(open + 1, close).split(",")) {
                if (!broker.contains("://")) {
                    return false; // failover:(a1,a2): brokers named, not given
                }
            }
        }
        int q = u.indexOf('?');
        if (q >= 0) {
            for (String option : u.substring(q + 1).split("&")) {
                if (!option.contains("=") || option.matches("[^=]*=[A-Z_]+")) {
                    return false; // ?options, ?key=VALUE
                }
            }
        }
        return true;
    }

    private static long count(String s, char c) {
        return s.chars().filter(x -> x == c).count();
    }

    // ------------------------------------------------------------------------------------------- compiling

    private static List<String> compile(List<Block> java) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler).as("a JDK's compiler (javax.tools)").isNotNull();
        List<Source> sources = new ArrayList<>();
        Map<String, Source> byName = new HashMap<>();
        for (int i = 0; i < java.size(); i++) {
            Source s = Source.of(java.get(i), "DocSample" + i);
            sources.add(s);
            byName.put(s.toUri().toString(), s);
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            Path out = Files.createTempDirectory("doc-samples");
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(),
                    "-proc:none", "-Xlint:none", "-nowarn");
            compiler.getTask(null, files, diagnostics, options, null, sources).call();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            Source s = d.getSource() == null ? null : byName.get(d.getSource().toUri().toString());
            String where = s == null ? "?" : s.docLine(d.getLineNumber());
            problems.add(where + ": " + String.join(" ", d.getMessage(Locale.ROOT).lines().map(String::strip).toList()));
        }
        return problems;
    }

    /** A sample wrapped into a compilation unit, remembering which generated line is which line of its page. */
    private static final class Source extends SimpleJavaFileObject {
        private final Block block;
        private final String code;
        private final int firstSampleLine;

        private Source(String className, Block block, String code, int firstSampleLine) {
            super(URI.create("string:///" + className + ".java"), Kind.SOURCE);
            this.block = block;
            this.code = code;
            this.firstSampleLine = firstSampleLine;
        }

        static Source of(Block b, String className) {
            StringBuilder head = new StringBuilder();
            for (String i : IMPORTS) {
                head.append("import ").append(i).append(";\n");
            }
            String text = b.text();
            String tail;
            if (TOP_LEVEL_CLASS.matcher(text).find()) {
                // Public or not, it compiles the same in a file of another name: same line count.
                text = text.replaceAll("(?m)^public\\s+((final|abstract)\\s+)?(class|record|interface)\\s", "$1$3 ");
                tail = "\n";
            } else if (MEMBER_START.matcher(text.lines().findFirst().orElse("")).find()) {
                head.append("abstract class ").append(className).append(" {\n").append(PRELUDE);
                tail = "\n}\n";
            } else {
                head.append("abstract class ").append(className).append(" {\n").append(PRELUDE)
                        .append("void sample() throws Exception {\n");
                tail = "\n}\n}\n";
            }
            int first = (int) head.toString().lines().count() + 1;
            return new Source(className, b, head + text + tail, first);
        }

        /** The page and line of generated line {@code n}. */
        String docLine(long n) {
            long inSample = Math.max(0, Math.min(n - firstSampleLine, block.text().lines().count() - 1));
            return ROOT.relativize(block.page()) + ":" + (block.line() + 1 + inSample);
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    // ------------------------------------------------------------------------------------------- reading pages

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The fenced blocks of every page; {@code line} is the line of the opening fence. */
    private static List<Block> blocks() throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = FENCE.matcher(lines.get(i));
                if (!m.matches()) {
                    continue;
                }
                int j = i + 1;
                while (j < lines.size() && !lines.get(j).strip().startsWith(m.group(1))) {
                    j++;
                }
                blocks.add(new Block(page, i + 1, m.group(2).toLowerCase(Locale.ROOT), String.join("\n", lines.subList(i + 1, j))));
                i = j;
            }
        }
        return blocks;
    }

    /** Inline code ({@code `…`}) outside blocks, and every line of every block, with their page lines. */
    private static List<Span> codeSpans() throws IOException {
        List<Span> spans = new ArrayList<>();
        Pattern inline = Pattern.compile("`([^`]+)`");
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (FENCE.matcher(line).matches()) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    spans.add(new Span(page, i + 1, line));
                    continue;
                }
                Matcher m = inline.matcher(line);
                while (m.find()) {
                    spans.add(new Span(page, i + 1, m.group(1)));
                }
            }
        }
        return spans;
    }
}
