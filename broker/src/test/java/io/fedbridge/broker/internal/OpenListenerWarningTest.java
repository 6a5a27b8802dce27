package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class OpenListenerWarningTest {

    @Test
    void shouldWarnAboutAnOpenBrokerListeningBeyondLoopback() throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 61613);
        InetSocketAddress lan = new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 61613);

        assertThat(OpenListenerWarning.of("A", "tcp://0.0.0.0:61613", any, true))
                .startsWith("broker A: listener tcp://0.0.0.0:61613 accepts connections from other hosts (bound to every "
                        + "network interface) without authentication or authorization");
        assertThat(OpenListenerWarning.of("A", "tcp://10.1.2.3:61613", lan, true)).contains("(bound to 10.1.2.3)");
    }

    @Test
    void shouldStayQuietOnLoopbackOrWithSecurity() throws Exception {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 61613);
        InetSocketAddress loopback6 = new InetSocketAddress(InetAddress.getByName("::1"), 61613);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 61613);

        assertThat(OpenListenerWarning.of("A", "tcp://127.0.0.1:61613", loopback, true)).isNull();
        assertThat(OpenListenerWarning.of("A", "tcp://[::1]:61613", loopback6, true)).isNull();
        assertThat(OpenListenerWarning.of("A", "tcp://0.0.0.0:61613", any, false)).isNull();
        assertThat(OpenListenerWarning.of("A", "vm://A", new io.netty.channel.local.LocalAddress("A"), true)).isNull();
    }
}
