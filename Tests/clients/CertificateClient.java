// A provider written the way Java providers are (JDK's java.net.http.HttpClient over HTTP/2), with a
// certificate loaded the way Java loads one: a .p12 key store, or a PEM key read with
// PKCS8EncodedKeySpec and KeyFactory "RSA" — PKCS#8 RSA only, like Go's sideshow/apns2.
//
// Usage: java CertificateClient.java URL CA_FILE (p12 FILE PASSWORD | pem CERT_FILE KEY_FILE) TOKEN TOPIC
// Prints "<status> <apns-id> <body>" for one VoIP push, or "error: <why>" and exits 1.
import java.io.FileInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public class CertificateClient {
    public static void main(String[] args) throws Exception {
        String url = args[0], caFile = args[1], mode = args[2];
        String token = args[5], topic = args[6];
        char[] password = "ringside".toCharArray();
        KeyStore identity;
        try {
            if (mode.equals("p12")) {
                password = args[4].toCharArray();
                identity = KeyStore.getInstance("PKCS12");
                try (FileInputStream in = new FileInputStream(args[3])) { identity.load(in, password); }
            } else {
                Certificate certificate;
                try (FileInputStream in = new FileInputStream(args[3])) {
                    certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
                }
                String pem = Files.readString(Path.of(args[4]));
                if (!pem.contains("-----BEGIN PRIVATE KEY-----")) throw new IllegalArgumentException("not a PKCS#8 key");
                String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
                PrivateKey key = KeyFactory.getInstance("RSA")
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
                identity = KeyStore.getInstance("PKCS12");
                identity.load(null, null);
                identity.setKeyEntry("apns", key, password, new Certificate[] {certificate});
            }
        } catch (Exception failure) {
            System.out.println("error: cannot load the credentials: " + failure);
            System.exit(1);
            return;
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(identity, password);
        KeyStore anchors = KeyStore.getInstance("PKCS12");
        anchors.load(null, null);
        try (FileInputStream in = new FileInputStream(caFile)) {
            anchors.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(anchors);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(tls).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/3/device/" + token))
            .header("apns-topic", topic).header("apns-push-type", "voip").header("apns-priority", "10")
            .header("apns-expiration", "0")
            .POST(HttpRequest.BodyPublishers.ofString("{\"aps\":{},\"handle\":\"bob\"}")).build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            System.out.println(response.statusCode() + " " + response.headers().firstValue("apns-id").orElse("-")
                + " " + response.version() + " " + response.body());
        } catch (Exception failure) {
            System.out.println("error: " + failure);
            System.exit(1);
        }
    }
}
