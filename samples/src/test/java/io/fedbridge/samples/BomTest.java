package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * fedbridge-bom manages exactly the artifacts a release publishes: every module of the parent POM except the BOM itself
 * and those that skip deployment (the samples and benchmarks applications). Surefire runs this from the samples
 * directory, so the repository root is its parent.
 */
class BomTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldManageEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        Document bom = parse(ROOT.resolve("bom/pom.xml"));

        TreeSet<String> published = new TreeSet<>();
        for (String module : texts(parent.getDocumentElement(), "modules", "module")) {
            if (module.equals("bom")) {
                continue;
            }
            Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
            boolean skipsDeploy = texts(pom.getDocumentElement(), "properties", "maven.deploy.skip").contains("true");
            if (!skipsDeploy) {
                published.add(text(pom.getDocumentElement(), "artifactId"));
            }
        }
        TreeSet<String> managed = new TreeSet<>();
        Element management = child(bom.getDocumentElement(), "dependencyManagement");
        for (Element dependency : children(child(management, "dependencies"), "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("io.fedbridge");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }

        assertThat(published).contains("fedbridge-bridge-core", "fedbridge-broker").doesNotContain("fedbridge-samples");
        assertThat(managed).isEqualTo(published);
        assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(text(parent.getDocumentElement(), "version"));
        assertThat(child(bom.getDocumentElement(), "parent")).as("the BOM's parent").isNull();
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }

    /** The texts of {@code parent/container/name} elements. */
    private static List<String> texts(Element parent, String container, String name) {
        Element c = child(parent, container);
        return c == null ? List.of() : children(c, name).stream().map(e -> e.getTextContent().strip()).toList();
    }
}
