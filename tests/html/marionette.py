"""Headless Firefox driven through Marionette, its built-in remote protocol,
without geckodriver (Debian has no package for it): Firefox listens on a
local port when started with --marionette, and speaks length-prefixed JSON
("LEN:[0, id, command, params]"). Enough of it to load a page from disk, run
a script in it and take a screenshot."""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time


class Firefox:
    def __init__(self, binary, width=1500, height=1000, timeout=90):
        self.profile = tempfile.mkdtemp(prefix="smemlab-firefox-")
        # Port 0: Firefox picks a free port and writes it to MarionetteActivePort
        # (tests run in parallel). The other prefs keep a headless test browser
        # from reaching out on its own (updates, telemetry, first-run pages).
        prefs = {
            "marionette.port": 0,
            "app.update.disabledForTesting": True,
            "browser.shell.checkDefaultBrowser": False,
            "browser.startup.homepage_override.mstone": "ignore",
            "browser.startup.page": 0,
            "datareporting.policy.dataSubmissionEnabled": False,
            "toolkit.telemetry.enabled": False,
            "network.captive-portal-service.enabled": False,
            "network.connectivity-service.enabled": False,
            "browser.safebrowsing.update.enabled": False,
            "extensions.update.enabled": False,
            "remote.prefs.recommended": True,
        }
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in prefs.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_HEADLESS_WIDTH=str(width),
                   MOZ_HEADLESS_HEIGHT=str(height))
        self.proc = subprocess.Popen(
            [binary, "--headless", "--marionette", "--no-remote", "--profile", self.profile,
             "about:blank"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = os.path.join(self.profile, "MarionetteActivePort")
        deadline = time.time() + timeout
        self.sock = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("firefox exited early: " + self.proc.stderr.read().decode()[-2000:])
            if os.path.exists(port_file):
                text = open(port_file).read().strip()
                if text:
                    try:
                        self.sock = socket.create_connection(("127.0.0.1", int(text)), timeout=timeout)
                        break
                    except OSError:
                        pass
            time.sleep(0.2)
        if not self.sock:
            self.close()
            raise RuntimeError(f"firefox opened no Marionette port within {timeout} s")
        self.buf = b""
        self.next_id = 0
        self._read()  # the server's hello: {"applicationType": "gecko", ...}
        self.command("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {}}})

    def _read(self):
        while True:
            head, sep, rest = self.buf.partition(b":")
            if sep and len(rest) >= int(head):
                n = int(head)
                self.buf = rest[n:]
                return json.loads(rest[:n])
            self._recv()

    def _recv(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError("firefox closed the Marionette connection")
        self.buf += chunk

    def command(self, name, params=None):
        self.next_id += 1
        msg = json.dumps([0, self.next_id, name, params or {}]).encode()
        self.sock.sendall(str(len(msg)).encode() + b":" + msg)
        while True:
            reply = self._read()
            if reply[0] == 1 and reply[1] == self.next_id:
                break
        if reply[2]:
            raise RuntimeError(f"{name}: {reply[2]}")
        return reply[3]

    def navigate(self, url):
        self.command("WebDriver:Navigate", {"url": url})

    def script(self, body, *args):
        """Runs `body` (a function body; `return` gives the value) in the page."""
        return self.command("WebDriver:ExecuteScript", {"script": body, "args": list(args)})["value"]

    def screenshot(self, path):
        png = self.command("WebDriver:TakeScreenshot", {"full": False, "hash": False})["value"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def close(self):
        try:
            if self.sock:
                self.command("Marionette:Quit", {"flags": ["eForceQuit"]})
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
