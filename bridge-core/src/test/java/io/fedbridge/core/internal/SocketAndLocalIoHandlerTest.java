package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One event loop runs a vm:// connection and a socket side by side, as a bridge inside a broker does. */
class SocketAndLocalIoHandlerTest {

    private EventLoopGroup group;
    private boolean epoll;

    /** A one-loop group running local channels beside epoll ({@code true}) or NIO sockets. */
    private void start(boolean epoll) {
        Assumptions.assumeTrue(!epoll || io.netty.channel.epoll.Epoll.isAvailable(), "epoll is available here");
        this.epoll = epoll;
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("hybrid-test", true),
                SocketAndLocalIoHandler.newFactory(epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory()));
    }

    @AfterEach
    void shutdown() {
        if (group != null) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void shouldRunEpollSocketsOnLinuxX86() {
        Assumptions.assumeTrue("Linux".equals(System.getProperty("os.name"))
                && "amd64".equals(System.getProperty("os.arch")), "Linux on x86-64, the native library shipped");
        assertThat(io.netty.channel.epoll.Epoll.isAvailable()).as("epoll unavailable: %s",
                io.netty.channel.epoll.Epoll.unavailabilityCause()).isTrue();
        assertThat(Transports.EPOLL).as("sockets on epoll unless -Dfedbridge.transport=nio").isTrue();
    }

    /** Echoes what it reads. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Completes with the first message's text and the thread that read it. */
    private static final class FirstReply extends ChannelInboundHandlerAdapter {
        final CompletableFuture<String> text = new CompletableFuture<>();
        volatile Thread thread;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                thread = Thread.currentThread();
                text.complete(b.toString(UTF_8));
            } finally {
                b.release();
            }
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void shouldRunALocalChannelAndASocketOnTheSameThread(boolean useEpoll) throws Exception {
        start(useEpoll);
        EventLoop loop = group.next();
        Channel localServer = new ServerBootstrap().group(loop).channel(LocalServerChannel.class).childHandler(new Echo())
                .bind(new LocalAddress("hybrid-test-" + useEpoll)).sync().channel();
        Channel tcpServer = new ServerBootstrap().group(loop)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class).childHandler(new Echo())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try {
            FirstReply viaLocal = new FirstReply();
            FirstReply viaTcp = new FirstReply();
            Channel local = new Bootstrap().group(loop).channel(LocalChannel.class).handler(viaLocal)
                    .connect(localServer.localAddress()).sync().channel();
            Channel tcp = new Bootstrap().group(loop).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .handler(viaTcp)
                    .connect(tcpServer.localAddress()).sync().channel();
            local.writeAndFlush(Unpooled.copiedBuffer("over vm", UTF_8));
            tcp.writeAndFlush(Unpooled.copiedBuffer("over tcp", UTF_8));

            assertThat(viaLocal.text.get(10, TimeUnit.SECONDS)).isEqualTo("over vm");
            assertThat(viaTcp.text.get(10, TimeUnit.SECONDS)).isEqualTo("over tcp");
            assertThat(viaLocal.thread).isSameAs(viaTcp.thread);

            local.close().sync();
            await("the closed local channel leaves the loop").atMost(Duration.ofSeconds(10)).until(() -> !local.isRegistered());
            tcp.close().sync();
        } finally {
            localServer.close().sync();
            tcpServer.close().sync();
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false, true, false, true, false, true, false})
    void shouldCloseOpenLocalChannelsWhenTheGroupShutsDown(boolean useEpoll) throws Exception {
        start(useEpoll);
        Channel server = new ServerBootstrap().group(group).channel(LocalServerChannel.class).childHandler(new Echo())
                .bind(new LocalAddress("hybrid-test-shutdown-" + System.nanoTime())).sync().channel();
        Channel client = new Bootstrap().group(group).channel(LocalChannel.class).handler(new FirstReply())
                .connect(server.localAddress()).sync().channel();
        assertThat(client.isActive()).isTrue();

        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

        assertThat(client.closeFuture().await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(server.closeFuture().await(10, TimeUnit.SECONDS)).isTrue();
    }
}
