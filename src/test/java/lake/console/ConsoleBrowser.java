package lake.console;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Level;

/**
 * A headless Debian {@code chromium} driven through {@code /usr/bin/chromedriver}, for the
 * console's browser tests. {@code scripts/test} installs both when missing. Without them a test
 * is skipped on a developer's machine, and fails on CI ({@code CI=true}): there a missing browser
 * is a broken set-up, never a pass.
 */
final class ConsoleBrowser implements AutoCloseable {
    static final Path CHROMEDRIVER = Path.of(System.getenv().getOrDefault("LAKE_CHROMEDRIVER", "/usr/bin/chromedriver"));
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("LAKE_CHROMIUM", "/usr/bin/chromium"));
    static final Duration WAIT = Duration.ofSeconds(20);

    final WebDriver driver;
    final WebDriverWait wait;

    private ConsoleBrowser(WebDriver driver) {
        this.driver = driver;
        // The page re-renders its tables every refresh: an element read mid-render is looked up again.
        this.wait = new WebDriverWait(driver, WAIT);
        this.wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    /** A fresh browser (its own profile, so its own sessionStorage), or the test aborts / fails as above. */
    static ConsoleBrowser open() {
        boolean present = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (!present) {
            String why = "chromium and chromium-driver are needed (" + CHROMIUM + ", " + CHROMEDRIVER
                    + "); scripts/test installs them with apt-get";
            if ("true".equals(System.getenv("CI"))) throw new AssertionError("on CI the console's browser tests must run: " + why);
            Assumptions.abort(why);
        }
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=1280,1000", "--no-first-run", "--disable-extensions");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        return new ConsoleBrowser(new ChromeDriver(service, options));
    }

    void go(int port, String fragment) {
        driver.get("http://127.0.0.1:" + port + "/ui/" + fragment);
    }

    WebElement visible(String id) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id(id)));
    }

    /**
     * Clicks the element {@code by} finds once it is visible and enabled. The page re-renders its
     * lists every refresh, so an element found a moment ago may be gone: it is looked up again.
     */
    void click(By by) {
        wait.until(d -> {
            WebElement e = d.findElement(by);
            if (!e.isDisplayed() || !e.isEnabled()) return false;
            e.click();
            return true;
        });
    }

    /** Waits until the element's text satisfies {@code check}; returns that text. */
    String textOf(String id, Function<String, Boolean> check) {
        return wait.until(d -> {
            String t = d.findElement(By.id(id)).getText();
            return check.apply(t) ? t : null;
        });
    }

    /** Waits until {@code table}'s body has a row whose cells satisfy {@code check}; returns its cells' texts. */
    List<String> rowOf(String table, Function<List<String>, Boolean> check) {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .withMessage(() -> "no such row in #" + table + "; rows now: " + safeRows(table)).until(d -> {
            for (WebElement row : d.findElements(By.cssSelector("#" + table + " tbody tr"))) {
                List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
                if (check.apply(cells)) return cells;
            }
            return null;
        });
    }

    private String safeRows(String table) {
        try {
            return rows(table).toString();
        } catch (RuntimeException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    List<List<String>> rows(String table) {
        return driver.findElements(By.cssSelector("#" + table + " tbody tr")).stream()
                .map(r -> r.findElements(By.tagName("td")).stream().map(WebElement::getText).toList()).toList();
    }

    /** Everything the page logged at warning level or above (script errors, failed loads, CSP refusals), since the last call. */
    List<String> consoleProblems() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .map(LogEntry::toString).toList();
    }

    void screenshot(Path to) throws Exception {
        File shot = ((org.openqa.selenium.TakesScreenshot) driver).getScreenshotAs(org.openqa.selenium.OutputType.FILE);
        Files.createDirectories(to.toAbsolutePath().getParent());
        Files.copy(shot.toPath(), to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
