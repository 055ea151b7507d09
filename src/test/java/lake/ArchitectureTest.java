package lake;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The architecture doc's map of the code and its drawing, checked against the tree: the doc is
 * the rule and the code must keep it. Packages are named as the doc names them: {@code lake} for
 * the root, {@code node} for {@code lake.node}, {@code meta.rocks} for {@code lake.meta.rocks}.
 */
class ArchitectureTest {
    private static final Path DOC = Path.of("docs/architecture.md");
    private static final Path SOURCES = Path.of("src/main/java/lake");
    private static final int MAX_LINES = 1_500;
    private static final int MAX_FILES = 15;

    /** A package of the tree: its source files and the Metasrv packages its code refers to. */
    private record Room(List<Path> files, long lines, Map<String, Set<String>> uses) {}

    private static Map<String, Set<String>> map;
    private static Map<String, Integer> rows;
    private static Map<String, Room> tree;

    @BeforeAll
    static void read() throws IOException {
        String doc = Files.readString(DOC);
        map = mayUse(doc);
        rows = drawing(doc);
        tree = tree();
    }

    @Test
    void everyPackageIsInTheMapAndTheDrawing() {
        assertThat(map.keySet()).as("packages in the map of " + DOC).containsExactlyInAnyOrderElementsOf(tree.keySet());
        assertThat(rows.keySet()).as("packages in the drawing of " + DOC).containsExactlyInAnyOrderElementsOf(tree.keySet());
    }

    @Test
    void packageArrowsPointDown() {
        List<String> against = new ArrayList<>();
        tree.forEach((pkg, room) -> room.uses().forEach((used, where) -> {
            if (!map.getOrDefault(pkg, Set.of()).contains(used)) {
                against.add(name(pkg) + " uses " + name(used) + " (" + String.join(", ", where) + "), which the map does not allow");
            }
        }));
        map.forEach((pkg, allowed) -> allowed.forEach(used -> {
            Integer from = rows.get(pkg), to = rows.get(used);
            if (from != null && to != null && to >= from) {
                against.add("the map lets " + name(pkg) + " (row " + from + ") use " + name(used) + " (row " + to + "): not down the drawing");
            }
        }));
        assertThat(against).as("arrows against the architecture").isEmpty();
    }

    @Test
    void noPackageOutgrowsItsRoom() {
        List<String> large = new ArrayList<>();
        tree.forEach((pkg, room) -> {
            if (room.lines() > MAX_LINES || room.files().size() > MAX_FILES) {
                large.add(name(pkg) + ": " + room.files().size() + " files, " + room.lines() + " lines");
            }
        });
        assertThat(large).as("packages over " + MAX_FILES + " files or " + MAX_LINES + " lines").isEmpty();
    }

    @Test
    void everyPackageSaysWhatItIsFor() {
        List<String> silent = new ArrayList<>();
        for (String pkg : tree.keySet()) {
            Path info = dir(pkg).resolve("package-info.java");
            try {
                if (!Files.exists(info) || !Files.readString(info).contains("/**")) silent.add(name(pkg));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(silent).as("packages without a documented package-info.java").isEmpty();
    }

    /** The map's table: each package's row and the packages its "may use" cell names. */
    private static Map<String, Set<String>> mayUse(String doc) {
        String section = doc.substring(doc.indexOf("## Map of the code"));
        section = section.substring(0, section.indexOf("\n## ", 3));
        Map<String, Set<String>> out = new TreeMap<>();
        Pattern row = Pattern.compile("^\\| `(lake(?:\\.[a-z.]+)?)` \\|(.*)\\|(.*)\\|\\s*$", Pattern.MULTILINE);
        Pattern token = Pattern.compile("`([a-z][a-z.]*)`");
        Matcher m = row.matcher(section);
        while (m.find()) {
            String pkg = shortName(m.group(1));
            Set<String> uses = new TreeSet<>();
            Matcher t = token.matcher(m.group(3));
            while (t.find()) uses.add(t.group(1));
            out.put(pkg, uses);
        }
        return out;
    }

    /** The drawing's rows, each package with its row number (higher rows use lower ones). */
    private static Map<String, Integer> drawing(String doc) {
        int marker = doc.indexOf("<!-- layers");
        assertThat(marker).as("the drawing's marker in " + DOC).isNotNegative();
        int start = doc.indexOf("```text\n", marker) + "```text\n".length();
        String block = doc.substring(start, doc.indexOf("```", start));
        Map<String, Integer> out = new TreeMap<>();
        for (String line : block.split("\n")) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length < 2) continue;
            int row = Integer.parseInt(cells[0]);
            for (int i = 1; i < cells.length; i++) {
                assertThat(out.put(cells[i], row)).as(cells[i] + " stands once in the drawing").isNull();
            }
        }
        return out;
    }

    /** Every package under src/main/java/lake that holds code. */
    private static Map<String, Room> tree() throws IOException {
        Map<String, Room> out = new TreeMap<>();
        try (Stream<Path> dirs = Files.walk(SOURCES)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                List<Path> files;
                try (Stream<Path> f = Files.list(d)) {
                    files = f.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).sorted().toList();
                }
                if (files.isEmpty()) continue;
                String pkg = shortName(("lake." + SOURCES.relativize(d).toString().replace('/', '.')).replaceAll("\\.$", ""));
                long lines = 0;
                Map<String, Set<String>> uses = new TreeMap<>();
                for (Path f : files) {
                    String code = Files.readString(f);
                    lines += code.lines().count();
                    for (String used : references(code)) {
                        String u = shortName(used);
                        if (!u.equals(pkg)) uses.computeIfAbsent(u, k -> new TreeSet<>()).add(f.getFileName().toString());
                    }
                }
                out.put(pkg, new Room(files, lines, uses));
            }
        }
        return out;
    }

    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\n]*", Pattern.DOTALL);
    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\\n]|\\\\.)*\"");
    /** A Metasrv package named in code: {@code lake.x.y.Type} (imports, static imports, qualified names). */
    private static final Pattern REFERENCE = Pattern.compile("(?<![\\w.])(lake(?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
    /** A whole package imported: {@code import lake.x.y.*;}. */
    private static final Pattern WILDCARD = Pattern.compile("\\bimport\\s+(lake(?:\\.[a-z][a-z0-9]*)*)\\.\\*\\s*;");

    /** The Metasrv packages {@code code} refers to, comments and string literals left out. */
    static Set<String> references(String code) {
        String bare = STRINGS.matcher(COMMENTS.matcher(code).replaceAll(" ")).replaceAll("\"\"");
        Set<String> out = new TreeSet<>();
        Matcher m = REFERENCE.matcher(bare);
        while (m.find()) out.add(m.group(1));
        Matcher w = WILDCARD.matcher(bare);
        while (w.find()) out.add(w.group(1));
        return out;
    }

    private static String shortName(String pkg) {
        return pkg.equals("lake") ? "lake" : pkg.substring("lake.".length());
    }

    private static String name(String shortName) {
        return shortName.equals("lake") ? "lake" : "lake." + shortName;
    }

    private static Path dir(String shortName) {
        return shortName.equals("lake") ? SOURCES : SOURCES.resolve(shortName.replace('.', '/'));
    }

    @Test
    void referencesAreReadFromCodeOnly() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("import lake.bus.Bus;", "lake.bus");
        cases.put("import static lake.protocol.Ops.GET;", "lake.protocol");
        cases.put("x = new lake.iceberg.rest.IcebergService();", "lake.iceberg.rest");
        cases.put("import lake.node.*;", "lake.node");
        cases.put("import static lake.protocol.Ops.*;", "lake.protocol");
        cases.put("// lake.node.StoreVerticle", "");
        cases.put("/** {@code lake.node.StoreVerticle} */", "");
        cases.put("String a = \"lake.node.\" + id;", "");
        cases.forEach((code, expected) -> assertThat(String.join(",", references(code))).as(code).isEqualTo(expected));
    }
}
