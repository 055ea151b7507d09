package lake.storage;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether the remote signer signs an S3 request for a table: only requests to the S3 the
 * signer serves, in the table's bucket, for objects under the table's location, and only the
 * operations the caller's rights allow (reads for readers; writes, multipart uploads and batch
 * deletes of the table's own objects for writers). Everything else is refused with a reason.
 * Pure: no I/O, no clock.
 *
 * <p>A key is read as S3 reads it: the path percent-decoded once. Keys with empty, {@code .} or
 * {@code ..} segments, backslashes or control characters are refused whatever their prefix, so
 * no normalisation anywhere between the engine and S3 can move a signed request elsewhere.
 */
public final class SignCheck {
    /** The S3 the signer signs for: a configured endpoint (path-style), or AWS's in {@code region}. */
    public record Target(URI endpoint, String region) {
        public Target {
            if (region == null || region.isBlank()) throw new IllegalArgumentException("a signing region is required");
            if (endpoint != null) {
                String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
                String path = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
                if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null || !(path.isEmpty() || path.equals("/"))
                        || endpoint.getRawQuery() != null || endpoint.getRawUserInfo() != null) {
                    throw new IllegalArgumentException("iceberg-s3-endpoint: '" + endpoint + "' is not an http(s) endpoint with a host and no path");
                }
            }
        }
    }

    /** What was asked, as the engine's signer client sends it (Iceberg's {@code RemoteSignRequest}). */
    public record Request(String region, String method, URI uri, Map<String, List<String>> headers, String body) {}

    private SignCheck() {}

    private static final Set<String> OBJECT_READ_QUERY = Set.of("versionId", "partNumber", "response-content-type",
            "response-content-disposition", "response-cache-control", "response-content-encoding", "response-content-language",
            "response-expires", "x-id");
    private static final Set<String> LIST_QUERY = Set.of("list-type", "prefix", "continuation-token", "max-keys", "start-after",
            "delimiter", "encoding-type", "fetch-owner", "x-id");
    /** Headers that would reach beyond the object or change who may use it: never signed. */
    private static final List<String> FORBIDDEN_HEADER_PREFIXES = List.of("x-amz-copy-source", "x-amz-acl", "x-amz-grant-",
            "x-amz-website-redirect-location", "x-amz-object-lock", "x-amz-bypass-governance", "x-amz-tagging");

    /** Why {@code r} is not signed for table location {@code table} (read-write when {@code write}); empty when it is. */
    public static Optional<String> refusal(Target target, S3Location table, boolean write, Request r) {
        try {
            check(target, table, write, r);
            return Optional.empty();
        } catch (Refused e) {
            return Optional.of(e.getMessage());
        }
    }

    private static final class Refused extends Exception {
        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    private static void check(Target target, S3Location table, boolean write, Request r) throws Refused {
        if (r.method() == null || r.uri() == null) throw new Refused("a sign request needs a method and a uri");
        String method = r.method().toUpperCase(Locale.ROOT);
        if (!method.equals(r.method())) throw new Refused("method '" + r.method() + "' is not upper case");
        if (!target.region().equals(r.region())) throw new Refused("region '" + r.region() + "' is not the signer's (" + target.region() + ")");
        URI uri = r.uri();
        if (uri.getRawUserInfo() != null || uri.getRawFragment() != null) throw new Refused("the uri carries user info or a fragment");
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http")) throw new Refused("the uri is not http(s)");
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        String rawPath = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (!rawPath.startsWith("/")) throw new Refused("the uri's path is not absolute");
        String bucket;
        String rawKey;
        if (target.endpoint() != null) {
            URI e = target.endpoint();
            if (!scheme.equals(e.getScheme().toLowerCase(Locale.ROOT)) || !host.equals(e.getHost().toLowerCase(Locale.ROOT))
                    || port(uri) != port(e)) {
                throw new Refused("not the S3 endpoint this signer serves");
            }
            String[] parts = splitBucket(rawPath);
            bucket = parts[0];
            rawKey = parts[1];
        } else {
            if (!scheme.equals("https") || port(uri) != 443) throw new Refused("AWS S3 is reached over https on port 443");
            Matcher virtual = VIRTUAL_HOST.matcher(host);
            if (virtual.matches() && regionMatches(virtual.group(2), target.region())) {
                bucket = virtual.group(1);
                rawKey = rawPath.substring(1);
            } else {
                Matcher path = PATH_HOST.matcher(host);
                if (!path.matches() || !regionMatches(path.group(1), target.region())) throw new Refused("not an S3 endpoint of " + target.region());
                String[] parts = splitBucket(rawPath);
                bucket = parts[0];
                rawKey = parts[1];
            }
        }
        if (!bucket.equals(table.bucket())) throw new Refused("bucket '" + bucket + "' is not the table's");
        String key = decodeKey(rawKey);
        Map<String, String> query = query(uri.getRawQuery());
        for (Map.Entry<String, List<String>> h : r.headers() == null ? Map.<String, List<String>>of().entrySet() : r.headers().entrySet()) {
            // Only RFC 9110 token names: " x-amz-copy-source" would slip past the prefix checks and still be signed.
            if (!h.getKey().matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) throw new Refused("header name '" + h.getKey() + "' is not an HTTP token");
            String name = h.getKey().toLowerCase(Locale.ROOT);
            for (String p : FORBIDDEN_HEADER_PREFIXES) if (name.startsWith(p)) throw new Refused("header '" + h.getKey() + "' is never signed");
            // The signature covers Host: one naming another bucket or endpoint would carry it there.
            if (name.equals("host")) {
                for (String v : h.getValue()) {
                    if (!v.equalsIgnoreCase(uri.getRawAuthority())) throw new Refused("header 'Host: " + v + "' is not the uri's authority");
                }
            }
        }
        if (key.isEmpty()) {
            bucketOperation(table, write, method, query, r);
            return;
        }
        underTable(table, key);
        boolean reads = method.equals("GET") || method.equals("HEAD");
        if (reads) {
            if (query.containsKey("uploadId") && query.keySet().stream().allMatch(q -> q.equals("uploadId") || q.equals("max-parts")
                    || q.equals("part-number-marker") || q.equals("x-id"))) {
                return; // ListParts of an upload under the table
            }
            only(query, OBJECT_READ_QUERY, "reading an object");
            return;
        }
        if (!write) throw new Refused(method + " writes, and the caller may only read this table");
        switch (method) {
            case "PUT" -> {
                if (query.isEmpty() || query.keySet().equals(Set.of("x-id"))) return;
                if (query.keySet().containsAll(Set.of("partNumber", "uploadId"))) {
                    only(query, Set.of("partNumber", "uploadId", "x-id"), "uploading a part");
                    return;
                }
                throw new Refused("PUT with query " + query.keySet() + " is not an object or part upload");
            }
            case "POST" -> {
                if (query.containsKey("uploads")) only(query, Set.of("uploads", "x-id"), "starting a multipart upload");
                else if (query.containsKey("uploadId")) only(query, Set.of("uploadId", "x-id"), "completing a multipart upload");
                else throw new Refused("POST to an object is only a multipart upload's start or completion");
            }
            case "DELETE" -> {
                if (query.containsKey("uploadId")) only(query, Set.of("uploadId", "x-id"), "aborting a multipart upload");
                else only(query, Set.of("versionId", "x-id"), "deleting an object");
            }
            default -> throw new Refused("method " + method + " is never signed");
        }
    }

    private static void bucketOperation(S3Location table, boolean write, String method, Map<String, String> query, Request r) throws Refused {
        if (method.equals("GET") && "2".equals(query.get("list-type"))) {
            only(query, LIST_QUERY, "listing");
            String prefix = query.get("prefix");
            if (prefix == null || !prefix.startsWith(table.prefix())) throw new Refused("a listing must stay under the table's prefix " + table.prefix());
            // The table's own prefix, or a key-like prefix beneath it, held to the keys' rules.
            if (!prefix.equals(table.prefix())) underTable(table, prefix.endsWith("/") ? prefix + "x" : prefix);
            return;
        }
        if (method.equals("POST") && query.containsKey("delete")) {
            if (!write) throw new Refused("a batch delete writes, and the caller may only read this table");
            only(query, Set.of("delete", "x-id"), "a batch delete");
            String body = r.body();
            if (body == null || body.isEmpty()) throw new Refused("a batch delete is signed only with its body");
            String md5 = header(r.headers(), "Content-MD5");
            if (md5 == null) throw new Refused("a batch delete is signed only with its Content-MD5, which binds the body");
            byte[] digest;
            try {
                digest = MessageDigest.getInstance("MD5").digest(body.getBytes(StandardCharsets.UTF_8));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            if (!md5.equals(Base64.getEncoder().encodeToString(digest))) throw new Refused("the batch delete's Content-MD5 does not match its body");
            List<String> keys = batchDeleteKeys(body);
            for (String key : keys) underTable(table, key);
            return;
        }
        throw new Refused(method + " on the bucket " + query.keySet() + " is not a listing or batch delete of the table's objects");
    }

    private static void underTable(S3Location table, String key) throws Refused {
        if (!key.startsWith(table.prefix()) || key.length() == table.prefix().length()) {
            throw new Refused("key '" + key + "' is outside the table's location " + table.uri());
        }
        java.util.Optional<String> problem = ObjectKeys.problem(key.substring(table.prefix().length()));
        if (problem.isPresent()) throw new Refused("key '" + key + "' " + problem.get());
    }

    private static final Pattern VIRTUAL_HOST = Pattern.compile("([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\\.s3(?:[.-]([a-z0-9-]+))?\\.amazonaws\\.com");
    private static final Pattern PATH_HOST = Pattern.compile("s3(?:[.-]([a-z0-9-]+))?\\.amazonaws\\.com");
    private static final String S3_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";

    /**
     * The keys of a batch delete's body, read by an XML parser as S3 reads them: exactly
     * {@code Delete(Quiet?, Object(Key, VersionId?)+)} in S3's namespace or none, no DTD, no
     * attributes but namespace declarations, nothing else; 1 to 1000 objects.
     */
    static List<String> batchDeleteKeys(String body) throws Refused {
        org.w3c.dom.Document doc;
        try {
            javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            javax.xml.parsers.DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            // The bytes S3 receives (UTF-8), so a declared encoding is read as S3 would read it.
            doc = b.parse(new java.io.ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new Refused("the batch delete's body is not well-formed XML without a DTD");
        }
        if (doc.getXmlEncoding() != null && !doc.getXmlEncoding().equalsIgnoreCase("UTF-8")) {
            throw new Refused("the batch delete's body declares encoding " + doc.getXmlEncoding() + "; only UTF-8 is signed");
        }
        org.w3c.dom.Element root = doc.getDocumentElement();
        String ns = root.getNamespaceURI();
        if (ns != null && !ns.equals(S3_XMLNS)) throw new Refused("the batch delete's body is not in S3's namespace");
        if (!"Delete".equals(root.getLocalName()) || root.getPrefix() != null) throw new Refused("the batch delete's body is not a Delete");
        onlyNamespaceDeclarations(root);
        List<String> keys = new java.util.ArrayList<>();
        boolean quiet = false;
        for (org.w3c.dom.Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
            org.w3c.dom.Element e = element(n, ns);
            if (e == null) continue;
            switch (e.getLocalName()) {
                case "Quiet" -> {
                    if (quiet || !keys.isEmpty()) throw new Refused("the batch delete's Quiet is given twice or after an Object");
                    quiet = true;
                    textOnly(e);
                }
                case "Object" -> {
                    String key = null;
                    boolean version = false;
                    for (org.w3c.dom.Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
                        org.w3c.dom.Element ce = element(c, ns);
                        if (ce == null) continue;
                        if (ce.getLocalName().equals("Key") && key == null) key = textOnly(ce);
                        else if (ce.getLocalName().equals("VersionId") && !version) version = textOnly(ce) != null;
                        else throw new Refused("the batch delete's Object holds '" + ce.getTagName() + "'");
                    }
                    if (key == null) throw new Refused("the batch delete names an Object without a Key");
                    keys.add(key);
                }
                default -> throw new Refused("the batch delete's body holds '" + e.getTagName() + "'");
            }
        }
        if (keys.isEmpty() || keys.size() > 1000) throw new Refused("a batch delete names 1 to 1000 keys, this one " + keys.size());
        return keys;
    }

    /** {@code n} as an element of namespace {@code ns} without a prefix, or null for blank text; anything else is refused. */
    private static org.w3c.dom.Element element(org.w3c.dom.Node n, String ns) throws Refused {
        if (n.getNodeType() == org.w3c.dom.Node.COMMENT_NODE) return null;
        if (n.getNodeType() == org.w3c.dom.Node.TEXT_NODE && n.getNodeValue().isBlank()) return null;
        if (n.getNodeType() != org.w3c.dom.Node.ELEMENT_NODE) throw new Refused("the batch delete's body has text or markup between its elements");
        org.w3c.dom.Element e = (org.w3c.dom.Element) n;
        if (e.getPrefix() != null || !java.util.Objects.equals(e.getNamespaceURI(), ns)) throw new Refused("the batch delete's '" + e.getTagName() + "' is in another namespace");
        if (e.getAttributes().getLength() > 0) throw new Refused("the batch delete's '" + e.getTagName() + "' has attributes");
        return e;
    }

    private static void onlyNamespaceDeclarations(org.w3c.dom.Element e) throws Refused {
        org.w3c.dom.NamedNodeMap a = e.getAttributes();
        for (int i = 0; i < a.getLength(); i++) {
            org.w3c.dom.Node attr = a.item(i);
            if (!"http://www.w3.org/2000/xmlns/".equals(attr.getNamespaceURI()) || attr.getPrefix() != null) {
                throw new Refused("the batch delete's Delete has attribute '" + attr.getNodeName() + "'");
            }
        }
    }

    /** An element's text: text and CDATA only. */
    private static String textOnly(org.w3c.dom.Element e) throws Refused {
        StringBuilder b = new StringBuilder();
        for (org.w3c.dom.Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            short t = c.getNodeType();
            if (t != org.w3c.dom.Node.TEXT_NODE && t != org.w3c.dom.Node.CDATA_SECTION_NODE) throw new Refused("the batch delete's '" + e.getTagName() + "' holds markup");
            b.append(c.getNodeValue());
        }
        return b.toString();
    }

    /** Whether a request that passed {@link #refusal} is a batch delete (a POST to the bucket with {@code ?delete}): its body is signed. */
    public static boolean batchDelete(Request r) {
        if (!"POST".equals(r.method())) return false;
        try {
            return query(r.uri().getRawQuery()).containsKey("delete");
        } catch (Refused e) {
            return false;
        }
    }

    private static boolean regionMatches(String given, String region) {
        return given == null ? region.equals("us-east-1") : given.equals(region);
    }

    private static int port(URI u) {
        if (u.getPort() != -1) return u.getPort();
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private static String[] splitBucket(String rawPath) throws Refused {
        String rest = rawPath.substring(1);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        if (bucket.isEmpty()) throw new Refused("the uri names no bucket");
        if (bucket.indexOf('%') >= 0) throw new Refused("an encoded bucket name is refused");
        return new String[] {bucket, slash < 0 ? "" : rest.substring(slash + 1)};
    }

    /** The key as S3 reads it: percent-decoded once, as UTF-8; malformed escapes and invalid UTF-8 are refused. */
    static String decodeKey(String raw) throws Refused {
        return decode(raw, false);
    }

    private static String decode(String raw, boolean plusIsSpace) throws Refused {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) throw new Refused("a malformed percent escape");
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) throw new Refused("a malformed percent escape");
                out.write(hi * 16 + lo);
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                // S3 and form decoding disagree on '+' (a plus, or a space): refused rather than guessed.
                throw new Refused("a raw '+' in the query is ambiguous; encode it as %2B or %20");
            } else if (c > 0x7e || c < 0x21) {
                throw new Refused("a raw character outside printable ASCII in the uri");
            } else {
                out.write(c);
            }
        }
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        try {
            return decoder.decode(java.nio.ByteBuffer.wrap(out.toByteArray())).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new Refused("the key is not valid UTF-8");
        }
    }

    private static Map<String, String> query(String raw) throws Refused {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) return out;
        for (String pair : raw.split("&", -1)) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), true);
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true);
            if (out.put(name, value) != null) throw new Refused("query parameter '" + name + "' is given twice");
        }
        return out;
    }

    private static void only(Map<String, String> query, Set<String> allowed, String what) throws Refused {
        for (String q : query.keySet()) if (!allowed.contains(q)) throw new Refused("query parameter '" + q + "' is not part of " + what);
    }

    private static String header(Map<String, List<String>> headers, String name) {
        if (headers == null) return null;
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name) && !h.getValue().isEmpty()) return h.getValue().get(0);
        }
        return null;
    }

}
