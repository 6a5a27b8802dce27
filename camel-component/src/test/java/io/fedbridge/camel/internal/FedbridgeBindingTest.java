package io.fedbridge.camel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.fedbridge.camel.FedbridgeHeaderFilterStrategy;
import io.fedbridge.core.Message;
import io.fedbridge.failover.FailoverMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FedbridgeBindingTest {

    private final CamelContext context = new DefaultCamelContext();
    private final FedbridgeBinding binding = new FedbridgeBinding(new FedbridgeHeaderFilterStrategy());

    @AfterEach
    void stopContext() throws Exception {
        context.close();
    }

    private Exchange exchange() {
        return new DefaultExchange(context);
    }

    @Test
    void shouldSendApplicationHeadersAsTextAndKeepCamelFrameAndFederationHeadersBack() throws Exception {
        Exchange e = exchange();
        UUID id = UUID.randomUUID();
        e.getIn().setHeader("text", "t");
        e.getIn().setHeader("long", 7L);
        e.getIn().setHeader("id", id);
        e.getIn().setHeader("char", 'c');
        e.getIn().setHeader("nothing", null);
        e.getIn().setHeader("object", new StringBuilder("a builder is a CharSequence"));
        e.getIn().setHeader("list", java.util.List.of(1));
        e.getIn().setHeader("CamelFileName", "f");
        e.getIn().setHeader("camelLower", "f");
        e.getIn().setHeader("org.apache.camel.Internal", "f");
        e.getIn().setHeader("Destination", "/queue/elsewhere");
        e.getIn().setHeader("message-id", "m-1");
        e.getIn().setHeader("redelivery-count", "3");
        e.getIn().setHeader("Fedbridge-Id", "forged");
        e.getIn().setHeader("fedbridge-hops", "9");
        e.getIn().setHeader("reply-to", "/temp-queue/r");
        e.getIn().setBody(new byte[] {1, 2});

        Message m = binding.toFedbridge(e, e.getIn(), "/queue/out").build();

        assertThat(m.destination()).isEqualTo("/queue/out");
        assertThat(m.body()).containsExactly(1, 2);
        assertThat(m.headers()).containsOnly(Map.entry("text", "t"), Map.entry("long", "7"), Map.entry("id", id.toString()),
                Map.entry("char", "c"), Map.entry("object", "a builder is a CharSequence"),
                Map.entry("reply-to", "/temp-queue/r"));
    }

    @Test
    void shouldLeaveOutSkippedHeadersWhateverTheirCase() throws Exception {
        Exchange e = exchange();
        e.getIn().setHeader("Reply-To", "/temp-queue/r");
        e.getIn().setHeader("keep", "k");

        assertThat(binding.toFedbridge(e, e.getIn(), "/queue/out", "reply-to").build().headers())
                .containsOnly(Map.entry("keep", "k"));
    }

    @Test
    void shouldEncodeTextInTheExchangeCharsetAndLabelIt() throws Exception {
        Exchange e = exchange();
        e.getIn().setBody("žluťoučký");
        Message utf8 = binding.toFedbridge(e, e.getIn(), "/queue/t").build();
        assertThat(utf8.bodyAsString()).isEqualTo("žluťoučký");
        assertThat(utf8.headers()).containsEntry("content-type", "text/plain;charset=UTF-8");

        Exchange latin = exchange();
        latin.setProperty(Exchange.CHARSET_NAME, "ISO-8859-1");
        latin.getIn().setBody("café");
        latin.getIn().setHeader(Exchange.CONTENT_TYPE, "text/x-menu;charset=ISO-8859-1");
        Message m = binding.toFedbridge(latin, latin.getIn(), "/queue/t").build();
        assertThat(m.body()).isEqualTo("café".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(m.headers()).containsEntry("content-type", "text/x-menu;charset=ISO-8859-1").doesNotContainKey("Content-Type");
    }

    @Test
    void shouldReceiveBytesAndEveryWireHeaderButCamelsAndTheFrameLevelOnes() {
        Map<String, String> wire = new LinkedHashMap<>();
        wire.put("destination", "/queue/in");
        wire.put("message-id", "m-9");
        wire.put("subscription", "s-1");
        wire.put("ack", "a-1");
        wire.put("content-length", "4");
        wire.put("content-type", "text/plain;charset=ISO-8859-1");
        wire.put("CamelHttpUri", "http://evil");
        wire.put("org.apache.camel.Whatever", "x");
        wire.put("fedbridge-id", "origin:1");
        wire.put("app", "ok");
        FailoverMessage received = mock(FailoverMessage.class);
        when(received.headers()).thenReturn(wire);
        when(received.header("content-type")).thenReturn(wire.get("content-type"));
        when(received.body()).thenReturn("café".getBytes(StandardCharsets.ISO_8859_1));
        when(received.identity()).thenReturn("origin:1");
        Exchange e = exchange();

        binding.populate(e.getIn(), received, e);

        assertThat(e.getIn().getBody()).isInstanceOf(byte[].class);
        assertThat(e.getIn().getBody(String.class)).as("decoded with the content-type's charset").isEqualTo("café");
        assertThat(e.getIn().getMessageId()).isEqualTo("origin:1");
        assertThat(e.getIn().getHeaders()).containsOnlyKeys("destination", "message-id", "content-type", "fedbridge-id", "app");
    }

    @Test
    void shouldDefaultToUtf8ForTextWithoutACharset() {
        assertThat(FedbridgeBinding.charsetOf(null)).isEqualTo(StandardCharsets.UTF_8);
        assertThat(FedbridgeBinding.charsetOf("application/json")).isEqualTo(StandardCharsets.UTF_8);
        assertThat(FedbridgeBinding.charsetOf("text/plain; charset=\"ISO-8859-1\"")).isEqualTo(StandardCharsets.ISO_8859_1);
        assertThat(FedbridgeBinding.charsetOf("text/plain;charset=no-such")).isEqualTo(StandardCharsets.UTF_8);
    }
}
