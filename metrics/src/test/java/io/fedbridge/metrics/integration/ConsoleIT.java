package io.fedbridge.metrics.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The web console in a real browser (headless Chromium driven by Selenium and Debian's chromedriver): what a person
 * sees of a three-broker federation, and how it follows the federation live.
 */
class ConsoleIT extends MetricsTestSupport {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String GREEN = "#2e7d32";
    private static final String RED = "#c62828";

    private WebDriver browser() {
        assumeTrue(new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
                "needs Debian's chromium and chromium-driver (.ci/run installs them)");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM)
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=1280,720", "--hide-scrollbars");
        ChromeDriver driver = new ChromeDriver(service, options);
        resources.add(0, driver::quit);
        return driver;
    }

    @Test
    void shouldDrawTheFederationAndFollowLinkStatesAndQueueDepthsLive() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("B"));
        Broker c = startBroker(BrokerConfig.builder("C"));
        Broker a = startBroker(BrokerConfig.builder("A").metrics("http://127.0.0.1:0")
                .networkConnector("static:(vm://B,vm://C)?initialReconnectDelay=200&maxReconnectDelay=500"));
        // traffic A -> B, so the link has a rate
        connect(b).subscribe(SubscriptionRequest.of("/queue/orders"), m -> { });
        StompConnection producer = connect(a);
        ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor();
        resources.add(0, traffic::shutdownNow);
        traffic.scheduleAtFixedRate(() -> {
            for (int i = 0; i < 5; i++) {
                producer.sendWithoutReceipt(Message.of("/queue/orders", "order"));
            }
        }, 0, 50, TimeUnit.MILLISECONDS);

        WebDriver browser = browser();
        browser.get(endpoint(a, "/").toString());

        eventually("three brokers and two green links").untilAsserted(() -> {
            assertThat(browser.findElements(By.cssSelector("#graph g.node")))
                    .extracting(n -> n.getAttribute("data-broker")).containsExactlyInAnyOrder("A", "B", "C");
            List<WebElement> links = browser.findElements(By.cssSelector("#graph line.link"));
            assertThat(links).extracting(l -> l.getAttribute("data-peer-name")).containsExactlyInAnyOrder("B", "C");
            assertThat(links).extracting(l -> l.getAttribute("stroke")).containsOnly(GREEN);
        });
        eventually("names and readiness").untilAsserted(() -> {
            assertThat(browser.findElement(By.cssSelector("#graph g.node[data-broker='B'] text")).getText()).isEqualTo("B");
            assertThat(browser.findElement(By.id("ready")).getText()).isEqualTo("ready");
        });

        StompConnection p = connect(a);
        for (int i = 0; i < 7; i++) {
            p.send(Message.of("/queue/backlog", "m" + i)).get();
        }
        eventually("the queue's depth shows").until(() -> depth(browser, "/queue/backlog"), "7"::equals);
        eventually("a rate on the busy link").until(() -> browser.findElements(By.cssSelector("#graph text.link-label"))
                .stream().anyMatch(t -> t.getText().endsWith("msg/s") && !t.getText().startsWith("0.0")));
        screenshot(browser);

        connect(a).subscribe(SubscriptionRequest.of("/queue/backlog"), m -> { });
        eventually("the depth drops").until(() -> depth(browser, "/queue/backlog"), "0"::equals);

        c.close();
        eventually("C's link turns red").untilAsserted(() -> {
            WebElement toC = browser.findElement(By.cssSelector("#graph line.link[data-peer='vm://C']"));
            assertThat(toC.getAttribute("data-state")).isEqualTo("DOWN");
            assertThat(toC.getAttribute("stroke")).isEqualTo(RED);
            assertThat(browser.findElement(By.cssSelector("tr.link-row[data-peer='vm://C'] .error")).getAttribute("title"))
                    .isNotEmpty();
            assertThat(browser.findElement(By.cssSelector("#graph line.link[data-peer='vm://B']")).getAttribute("stroke"))
                    .isEqualTo(GREEN);
            assertThat(browser.findElements(By.cssSelector("#graph g.node"))).hasSize(3);
        });
    }

    /** An Awaitility wait that reads the page again when it changed under the read (it is redrawn every second). */
    private static ConditionFactory eventually(String what) {
        return await(what).atMost(WAIT).ignoreExceptionsInstanceOf(StaleElementReferenceException.class);
    }

    private static String depth(WebDriver browser, String queue) {
        List<WebElement> cells = browser.findElements(By.cssSelector("tr.queue[data-queue='" + queue + "'] td.depth"));
        return cells.isEmpty() ? null : cells.get(0).getText();
    }

    /** Keeps a screenshot in target/ (docs/images/console.png is one of them). */
    private static void screenshot(WebDriver browser) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path to = Path.of("target", "console.png");
        Files.createDirectories(to.getParent());
        Files.copy(shot.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
    }
}
