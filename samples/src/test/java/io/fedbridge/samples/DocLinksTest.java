package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md resolves: the file or directory exists, and a {@code #anchor} is the
 * GitHub slug of a heading (or an HTML {@code id}/{@code name}) in the target page. Links to other sites are not
 * fetched. Surefire runs this from the samples directory, so the repository root is its parent.
 */
class DocLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** {@code [text](target)} and {@code ![alt](target)}, with an optional title after the target. */
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    /** {@code [label]: target} at the start of a line. */
    private static final Pattern REFERENCE_LINK = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ID = Pattern.compile("<[^>]+\\s(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");

    private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

    @Test
    void shouldResolveEveryRelativeLinkAndAnchorInTheReadmeAndDocs() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        assertThat(pages.get(0)).as("the repository root, seen from " + Path.of("").toAbsolutePath()).exists();

        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (Link link : links(page)) {
                checked++;
                String problem = problem(page, link.target());
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ":" + link.line() + ": " + link.target() + " (" + problem + ")");
                }
            }
        }

        assertThat(checked).as("links found").isGreaterThan(10);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void shouldMakeAnchorsAsGitHubDoes() {
        Set<String> seen = new HashSet<>();
        assertThat(slug("The two commands", seen)).isEqualTo("the-two-commands");
        assertThat(slug("A 5-minute tour", seen)).isEqualTo("a-5-minute-tour");
        assertThat(slug("`ServerSession` & the *journal*: what's stored?", seen))
                .isEqualTo("serversession--the-journal-whats-stored");
        assertThat(slug("[Linked](docs/x.md) heading_with_underscore", seen)).isEqualTo("linked-heading_with_underscore");
        assertThat(slug("The two commands", seen)).isEqualTo("the-two-commands-1");
    }

    @Test
    void shouldReportAMissingFileAndAMissingAnchor() {
        Path readme = ROOT.resolve("README.md");
        assertThat(problem(readme, "docs/no-such-page.md")).contains("no such file");
        assertThat(problem(readme, "#no-such-heading")).contains("no heading");
        assertThat(problem(readme, "docs/security.md#no-such-heading")).contains("no heading");
    }

    private record Link(int line, String target) {
    }

    /** The relative links of a page, outside fenced code blocks and inline code. */
    private static List<Link> links(Path page) {
        List<Link> links = new ArrayList<>();
        boolean fenced = false;
        List<String> lines = read(page);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            String text = INLINE_CODE.matcher(line).replaceAll("");
            Matcher m = INLINE_LINK.matcher(text);
            while (m.find()) {
                addIfRelative(links, i + 1, m.group(1));
            }
            Matcher r = REFERENCE_LINK.matcher(text);
            if (r.matches()) {
                addIfRelative(links, i + 1, r.group(1));
            }
        }
        return links;
    }

    private static void addIfRelative(List<Link> links, int line, String target) {
        if (target.isEmpty() || target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return; // http:, https:, mailto: ...: not checked here
        }
        links.add(new Link(line, target));
    }

    /** Null if {@code target}, linked from {@code page}, resolves; otherwise what is wrong. */
    private String problem(Path page, String target) {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(decode(path)).normalize();
        if (!file.startsWith(ROOT)) {
            return "outside the repository";
        }
        if (!Files.exists(file)) {
            return "no such file: " + ROOT.relativize(file);
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return null; // a line anchor into source (#L10) and the like
        }
        Set<String> anchors = anchorsByFile.computeIfAbsent(file, DocLinksTest::anchors);
        return anchors.contains(decode(anchor).toLowerCase(Locale.ROOT)) ? null
                : "no heading with anchor #" + anchor + " in " + ROOT.relativize(file);
    }

    /** The anchors GitHub gives a page: one per heading (outside code blocks), plus HTML ids and names. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        Set<String> seen = new HashSet<>();
        boolean fenced = false;
        for (String line : read(page)) {
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                anchors.add(slug(h.group(1), seen));
            }
            Matcher id = HTML_ID.matcher(line);
            while (id.find()) {
                anchors.add(id.group(1).toLowerCase(Locale.ROOT));
            }
        }
        return anchors;
    }

    /**
     * GitHub's heading anchor (github-slugger): the rendered text lower-cased, every character that is not a letter,
     * digit, mark, space, hyphen or underscore dropped, spaces turned into hyphens; a repeated slug gets -1, -2, ...
     */
    static String slug(String heading, Set<String> seen) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link renders as its text
                .replaceAll("<[^>]+>", "");                                  // inline HTML renders as nothing
        String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M}\\p{Pc} -]", "").replace(' ', '-');
        String unique = slug;
        for (int n = 1; !seen.add(unique); n++) {
            unique = slug + "-" + n;
        }
        return unique;
    }

    private static String decode(String s) {
        return java.net.URLDecoder.decode(s.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static List<String> read(Path page) {
        try {
            return Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
