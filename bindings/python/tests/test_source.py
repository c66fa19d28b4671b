"""The SDK data source through ctypes: identity and edits, clustering, filters, import over HTTP
from a local server, and queries racing writes on real threads."""
import contextlib
import functools
import gzip
import http.server
import json
import math
import os
import threading
from pathlib import Path

import pytest

import mapcore

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "supercluster"
PLACES = json.loads((FIXTURES / "places.json").read_text())
WORLD = (-180, -85, 180, 85)


def _source_with_places(**options):
    source = mapcore.DataSource(**options)
    source.add(PLACES)
    return source


def test_data_source_identity_and_edits():
    source = _source_with_places()
    assert len(source) == 163
    assert source.get(737)["properties"]["name"] == "Cape Reinga"
    assert source.get(737.0)["properties"]["name"] == "Cape Reinga"
    assert source.get("737") is None
    assert source.remove(737) == 1 and len(source) == 162 and source.get(737) is None
    assert source.remove(737) == 0
    source.remove_at(0)
    assert len(source) == 161
    with pytest.raises(mapcore.NotFoundError):
        source.remove_at(1000)
    source.add({"type": "Point", "coordinates": [1, 2]})
    assert source.to_geojson()["features"][-1]["geometry"]["coordinates"] == [1, 2]
    source.clear()
    assert len(source) == 0 and source.to_geojson()["features"] == []


def test_generate_and_promote_ids():
    generated = mapcore.DataSource(generate_id=True)
    generated.add(PLACES["features"][:3])
    generated.remove(1)
    generated.add(PLACES["features"][3:5])
    assert [f["id"] for f in generated.to_geojson()["features"]] == [0, 2, 3, 4]
    promoted = mapcore.DataSource(promote_id="name")
    promoted.add(PLACES)
    assert promoted.get("Cape Churchill")["properties"]["name"] == "Cape Churchill"


def test_clustered_source_queries():
    source = _source_with_places(cluster=True)
    assert source.options["clusterMaxZoom"] == 17
    features = source.clusters(WORLD, 0)
    clusters = [f for f in features if f["properties"].get("cluster")]
    assert clusters and sum(f["properties"].get("point_count", 1) for f in features) == 162
    first = clusters[0]["properties"]["cluster_id"]
    leaves = source.leaves(first, offset=0, limit=math.inf)
    assert len(leaves) == clusters[0]["properties"]["point_count"]
    assert source.leaves(first, offset=1, limit=2) == leaves[1:3]
    assert sum(c["properties"].get("point_count", 1) for c in source.children(first)) == len(leaves)
    assert source.expansion_zoom(first) >= 1
    hull = source.cluster_hull(first)
    assert hull["type"] in ("Polygon", "LineString", "Point")
    # The cluster feature itself works wherever its id does (the SDKs pass the feature).
    assert source.leaves(clusters[0], limit=math.inf) == leaves
    assert source.children(clusters[0]) == source.children(first)
    assert source.expansion_zoom(clusters[0]) == source.expansion_zoom(first)
    assert source.cluster_hull(clusters[0]) == hull
    with pytest.raises(ValueError, match="not a cluster"):
        source.leaves([f for f in features if not f["properties"].get("cluster")][0])
    with pytest.raises(TypeError):
        source.leaves(first, 2, 1)  # keyword-only: the SDKs disagree on the order
    tile = source.tile(0, 0, 0)
    assert all(-800 <= f["geometry"][0][0] <= 8192 + 800 for f in tile["features"])


def test_clustering_refuses_non_points_and_keeps_data():
    source = _source_with_places(cluster=True)
    line = {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}
    with pytest.raises(mapcore.UnsupportedError, match="Point"):
        source.add(line)
    assert len(source) == 163
    with pytest.raises(mapcore.UnsupportedError):
        source.set([line])
    assert len(source) == 163
    source.set_options(cluster=False)
    source.add(line)
    with pytest.raises(mapcore.UnsupportedError):
        source.set_options(cluster=True)
    assert source.options["cluster"] is False
    with pytest.raises(mapcore.NotFoundError):
        source.cluster_index()
    assert any(f["geometry"]["type"] == "LineString" for f in source.clusters((-1, -1, 2, 2), 5))


def test_filter_and_options_change_rebuild_the_index():
    source = _source_with_places(cluster=True, filter=["==", ["get", "featureclass"], "cape"])
    capes = sum(1 for f in PLACES["features"] if f["properties"] and f["properties"].get("featureclass") == "cape")
    shown = source.clusters(WORLD, 20)
    assert len(shown) == capes and len(source) == 163
    source.set_options(filter=None, cluster_radius=10)
    assert len(source.clusters(WORLD, 20)) == 162
    assert source.options["clusterRadius"] == 10
    with pytest.raises(mapcore.InvalidArgumentError):
        source.set_options(cluster_radius=-1)
    with pytest.raises(mapcore.ExpressionError):
        mapcore.DataSource(filter=["==", ["get"], 1])
    with pytest.raises(mapcore.ExpressionError) as failure:
        mapcore.DataSource(filter=["==", ["get", "a"], ["+", 1, "x"]])
    assert failure.value.path == "[2][2]"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serving(handler, tls=None):
    """A local server on a free port for the block's length; yields the base URL. `tls`: an
    ssl server context, for https."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_root(tmp_path):
    (tmp_path / "places.geojson").write_text(json.dumps(PLACES))
    (tmp_path / "broken.geojson").write_text('{"type": "FeatureCollection", "features": [')
    with _serving(functools.partial(_QuietHandler, directory=str(tmp_path))) as base:
        yield base, tmp_path


def test_import_from_http_file_url_and_path(http_root):
    base, root = http_root
    source = mapcore.DataSource(cluster=True)
    source.import_data(f"{base}/places.geojson")
    assert len(source) == 163
    source.import_data((root / "places.geojson").as_uri())
    source.import_data(str(root / "places.geojson"))
    assert len(source) == 3 * 163
    for bad, error in ((f"{base}/missing.geojson", mapcore.MapCoreIOError),
                       (f"{base}/broken.geojson", mapcore.ParseError),
                       ("http://127.0.0.1:9/nothing-listens-here", mapcore.MapCoreIOError),
                       (str(root / "nope.json"), mapcore.MapCoreIOError),
                       ("gopher://example/x", mapcore.UnsupportedError)):
        with pytest.raises(error):
            source.import_data(bad)
        assert len(source) == 3 * 163


@pytest.fixture
def https_root(tmp_path):
    """An HTTPS server with a self-signed certificate for 127.0.0.1 that no system trusts."""
    import ssl
    import subprocess
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    (tmp_path / "places.geojson").write_text(json.dumps(PLACES))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with _serving(functools.partial(_QuietHandler, directory=str(tmp_path)), tls=context) as base:
        yield f"{base}/places.geojson", cert


_IMPORT_PROGRAM = ("import mapcore, sys\n"
                   "s = mapcore.DataSource()\n"
                   "try:\n    s.import_data(sys.argv[1])\nexcept mapcore.MapCoreIOError as e:\n    print(e)\n"
                   "print(len(s))\n")


def _import_env():
    """This process's environment without the variables that name trusted certificates (the
    library reads them once per process, so each case runs in its own)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(mapcore.__file__).parents[1]), env.get("PYTHONPATH", "")])
    return env


def _assert_import(result, trusted):
    assert result.returncode == 0, result.stderr
    if trusted:
        assert result.stdout.strip() == "163", result.stdout
    else:
        assert result.stdout.splitlines()[-1] == "0" and "certificate" in result.stdout.lower(), result.stdout


def test_https_trusts_the_bundle_ssl_cert_file_names(https_root):
    import subprocess
    import sys
    url, cert = https_root
    env = _import_env()
    _assert_import(subprocess.run([sys.executable, "-c", _IMPORT_PROGRAM, url], env=env, capture_output=True,
                                  text=True), trusted=False)
    _assert_import(subprocess.run([sys.executable, "-c", _IMPORT_PROGRAM, url], env={**env, "SSL_CERT_FILE": str(cert)},
                                  capture_output=True, text=True), trusted=True)


_OVERLAY_ETC = 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc'


def _private_etc(tmp):
    """The command prefix of a mount namespace of its own (as root, else as root of a user
    namespace) in which an overlay can cover /etc and take the changes below (kept in `tmp`, the
    machine's /etc untouched; in a user namespace the overlay mounts, but removing a file of the
    machine's may fail), or None where this machine allows neither."""
    import shutil
    import subprocess
    if not shutil.which("unshare"):
        return None
    for k, prefix in enumerate((["unshare", "-m", "--propagation", "private"],
                                ["unshare", "-r", "-m", "--propagation", "private"])):
        upper, work = tmp / f"probe-upper-{k}", tmp / f"probe-work-{k}"
        upper.mkdir()
        work.mkdir()
        script = f"{_OVERLAY_ETC} && rm -rf /etc/ssl/certs && mkdir -p /etc/pki/tls/certs"
        probe = subprocess.run([*prefix, "sh", "-c", script, "sh", str(upper), str(work)], capture_output=True)
        if probe.returncode == 0:
            return prefix
    return None


@pytest.mark.parametrize("layout", ["Fedora", "openSUSE", "cert.pem only", "hashed directory", "SSL_CERT_DIR",
                                    "none"])
def test_https_finds_the_certificates_of_other_distributions(https_root, tmp_path, layout):
    """The wheel's libcurl is Debian's, built to read /etc/ssl/certs/ca-certificates.crt. Each case
    runs with /etc covered by an overlay (in a mount namespace of its own) where /etc/ssl/certs
    is another distribution's and the test server's certificate is where that distribution keeps
    its bundle: Fedora's (/etc/ssl/certs a link to /etc/pki/tls/certs, which holds
    ca-bundle.crt), openSUSE's (/etc/ssl/ca-bundle.pem beside a directory), /etc/ssl/cert.pem
    alone (OpenBSD's, macOS's), or a hashed directory only. Left to libcurl, Fedora's and
    openSUSE's failed every HTTPS fetch ("error setting certificate file"): its built-in
    directory exists there and its built-in bundle does not. Also a directory that SSL_CERT_DIR
    names, where no bundle is found; and, refused, a layout without the certificate."""
    import subprocess
    import sys
    prefix = _private_etc(tmp_path)
    if prefix is None:
        pytest.skip("needs a mount namespace (unshare as root, or unprivileged user namespaces) and overlayfs")
    url, cert = https_root
    digest = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", str(cert)], check=True,
                            capture_output=True, text=True).stdout.strip()
    env = _import_env()
    if layout == "SSL_CERT_DIR":
        named = tmp_path / "named"
        named.mkdir()
        (named / f"{digest}.0").write_bytes(cert.read_bytes())
        env["SSL_CERT_DIR"] = str(named)
    place = {"Fedora": "mkdir -p /etc/pki/tls/certs && cp \"$3\" /etc/pki/tls/certs/ca-bundle.crt"
                       " && ln -s /etc/pki/tls/certs /etc/ssl/certs",
             "openSUSE": "mkdir /etc/ssl/certs && cp \"$3\" /etc/ssl/ca-bundle.pem",
             "cert.pem only": "cp \"$3\" /etc/ssl/cert.pem",
             "hashed directory": f"mkdir /etc/ssl/certs && cp \"$3\" /etc/ssl/certs/{digest}.0",
             "SSL_CERT_DIR": "mkdir /etc/ssl/certs",
             "none": "mkdir /etc/ssl/certs"}[layout]
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir()
    work.mkdir()
    # Every step after the overlay's mount changes only the overlay (the `&&`s stop at a failure).
    script = (f"{_OVERLAY_ETC} && rm -rf /etc/ssl/certs /etc/ssl/cert.pem /etc/ssl/ca-bundle.pem /etc/pki"
              f' && {place} && exec "$4" -c "$5" "$6"')
    result = subprocess.run([*prefix, "sh", "-c", script, "sh", str(upper), str(work), str(cert), sys.executable,
                             _IMPORT_PROGRAM, url], env=env, capture_output=True, text=True)
    _assert_import(result, trusted=layout != "none")


class _HostileHandler(http.server.BaseHTTPRequestHandler):
    """/huge: a Content-Length of 600 GB and no body; /bomb: 1 MB of gzip that inflates to 64 MB;
    /stream: a body without a length that never ends."""

    BOMB = gzip.compress(b" " * (64 << 20))

    def do_GET(self):
        self.send_response(200)
        if self.path == "/huge":
            self.send_header("Content-Length", str(600 << 30))
            self.end_headers()
        elif self.path == "/bomb":
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(self.BOMB)))
            self.end_headers()
            self.wfile.write(self.BOMB)
        else:
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b" " * 65536)
            except OSError:
                pass

    def log_message(self, *args):
        pass


def _peak_rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_imports_stop_at_the_limit_before_memory_does(tmp_path):
    source = mapcore.DataSource(max_import_bytes=8 << 20)
    assert source.options["maxImportBytes"] == 8 << 20
    before = _peak_rss_mb()
    with _serving(_HostileHandler) as base:
        for path in ("/huge", "/bomb", "/stream"):
            with pytest.raises(mapcore.LimitError):
                source.import_data(base + path)
    # Nothing near the 64 MB inflated or the unending stream was held (the gzip bomb's own
    # 64 MB of text was made before `before`).
    assert _peak_rss_mb() - before < 40
    # Local files: a sparse 1 TB file is refused from its size, devices and FIFOs without reading.
    sparse = tmp_path / "sparse.geojson"
    with open(sparse, "wb") as f:
        f.truncate(1 << 40)
    with pytest.raises(mapcore.LimitError):
        source.import_data(str(sparse))
    with pytest.raises(mapcore.UnsupportedError):
        source.import_data("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(mapcore.UnsupportedError):
        source.import_data(str(fifo))
    with pytest.raises(mapcore.UnsupportedError):
        source.import_data(str(tmp_path))
    assert len(source) == 0
    with pytest.raises(mapcore.InvalidArgumentError):
        mapcore.DataSource(max_import_bytes=0)


def test_readers_never_see_a_mix_while_a_writer_replaces_data():
    """Two datasets of different sizes swap back and forth; every read must be wholly one or the
    other, across a count, a query and a frozen index view."""
    small = PLACES["features"][:40]
    large = PLACES["features"][:162]
    source = mapcore.DataSource(cluster=True)
    source.set(small)
    stop = threading.Event()
    problems = []

    def writer():
        for i in range(60):
            source.set(large if i % 2 == 0 else small)
        stop.set()

    def reader():
        while not stop.is_set():
            total = sum(f["properties"].get("point_count", 1) for f in source.clusters(WORLD, 0))
            if total not in (40, 162):
                problems.append(total)
            with source.cluster_index() as view:
                a = sum(c.point_count for c in view.get_clusters_flat(WORLD, 0))
                b = sum(c.point_count for c in view.get_clusters_flat(WORLD, 3))
                if a != b or a not in (40, 162):
                    problems.append((a, b))

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []


@pytest.mark.parametrize("passes", ["C", "Python"])
def test_cluster_ids_overlap_point_indexes_as_in_maplibre_native(passes, monkeypatch):
    """MapLibre Native's supercluster-cpp numbers clusters without the point count, so in the
    source's default compatibility cluster ids overlap the 163 input indexes. Every query tells
    them apart: a cluster dict (fetched, as it carries aggregates) is that cluster, not the point
    of the same number, with the C extension's passes and the Python ones. supercluster JS's ids
    (geojson-vt compatibility) stay above the input count."""
    if passes == "Python":
        monkeypatch.setattr(mapcore._lib, "dicts", None)
    source = _source_with_places(cluster=True, cluster_properties={"rank": ["max", ["get", "scalerank"]]})
    clusters = [f for f in source.clusters(WORLD, 0) if f["properties"].get("cluster")]
    low = [f for f in clusters if f["properties"]["cluster_id"] < len(PLACES["features"])]
    assert low, "some z0 cluster has an id below the input count"
    points = {f["properties"]["name"] for f in source.clusters(WORLD, 18)}
    for cluster in low:
        cid = cluster["properties"]["cluster_id"]
        assert cluster["id"] == cid and cluster["properties"]["point_count"] > 1 and "name" not in cluster["properties"]
        leaves = source.leaves(cluster, limit=math.inf)
        assert len(leaves) == cluster["properties"]["point_count"]
        assert {f["properties"]["name"] for f in leaves} <= points
        assert cluster["properties"]["rank"] == max(f["properties"]["scalerank"] for f in leaves)
        assert sum(c["properties"].get("point_count", 1) for c in source.children(cid)) == len(leaves)
        assert 0 < source.expansion_zoom(cid) <= 18
    js = _source_with_places(cluster=True, tile_compatibility="geojson-vt")
    assert all(f["properties"]["cluster_id"] > len(PLACES["features"])
               for f in js.clusters(WORLD, 0) if f["properties"].get("cluster"))


def test_clustered_source_dicts_are_the_features_the_library_writes_and_follow_writes():
    """clusters() of a clustered source answers from a cluster index view kept for the current
    version, fetching point features once: every answer equals the source's own GeoJSON
    (filter and aggregates included), points are the same dicts within a version, and a write
    (a new version) is seen by the next answer."""
    from mapcore._lib import lib, take_bytes
    from mapcore.cluster import _bbox
    source = _source_with_places(cluster=True, cluster_properties={"rank": ["max", ["get", "scalerank"]]},
                                 filter=[">=", ["get", "scalerank"], 2])

    def written(zoom):
        return json.loads(take_bytes(
            lambda buf: lib.mc_source_get_clusters(source._handle, _bbox(WORLD), float(zoom), 0, buf)))["features"]
    for zoom in range(0, 19):
        assert source.clusters(WORLD, zoom) == written(zoom), zoom
    points = source.clusters(WORLD, 18)
    assert all(a is b for a, b in zip(points, source.clusters(WORLD, 18)))
    renamed = {**PLACES, "features": [{**f, "properties": {**f["properties"], "name": f["properties"]["name"].upper()}}
                                      for f in PLACES["features"]]}
    source.set(renamed)
    after = source.clusters(WORLD, 18)
    assert after == written(18)
    assert {f["properties"]["name"] for f in after} == {f["properties"]["name"].upper() for f in points}
    # Children, leaves, expansion zoom and hull answer from the same kept view.
    source.set(PLACES)
    top = [f for f in source.clusters(WORLD, 0) if f["properties"].get("cluster")]
    assert source.leaves(top[0], limit=math.inf) and source.children(top[0])
    # Without aggregates the cluster dicts are made in Python: the same features, with
    # point_count_abbreviated as supercluster-cpp writes it (always a string) in MapLibre Native's
    # compatibility (the default), as supercluster JS does in geojson-vt's.
    for compatibility, kind in (("geojson-vt", int), ("maplibre-native", str)):
        plain_clusters = _source_with_places(cluster=True, cluster_radius=80, tile_compatibility=compatibility)
        assert plain_clusters._index_view()._plain
        written_plain = json.loads(take_bytes(lambda buf: lib.mc_source_get_clusters(
            plain_clusters._handle, _bbox(WORLD), 2.0, 0, buf)))["features"]
        assert plain_clusters.clusters(WORLD, 2) == written_plain
        abbreviations = {type(f["properties"]["point_count_abbreviated"])
                         for f in written_plain if f["properties"].get("cluster")}
        assert abbreviations == {kind}
    # Counts past 1,000 and 10,000, where the two formats part (the render test shows MapLibre
    # Native's): the dicts made here equal the library's.
    crowds = [{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [
        lng + (i % 97) / 100, lat + (i // 97) / 200]}} for count, lng, lat in ((12000, 10, 10), (1250, -40, 20))
        for i in range(count)]
    for compatibility, expected in (("geojson-vt", {"12k", "1.3k"}), ("maplibre-native", {"12.000000k", "1.2k"})):
        big = mapcore.DataSource(cluster=True, tile_compatibility=compatibility)
        big.add(crowds)
        written_big = json.loads(take_bytes(lambda buf: lib.mc_source_get_clusters(
            big._handle, _bbox(WORLD), 0.0, 0, buf)))["features"]
        assert big.clusters(WORLD, 0) == written_big
        assert {f["properties"]["point_count_abbreviated"] for f in written_big} == expected
    # Unclustered sources still give their features; close() lets go of the view.
    plain = _source_with_places()
    assert plain._index_view() is None and len(plain.clusters(WORLD, 3)) == 162  # one place lies beyond 85°S
    source.close()
    assert source._view is None


def test_cluster_abbreviations_keep_their_point_in_a_comma_locale(tmp_path):
    """A host whose LC_NUMERIC writes decimals with a comma (de_DE, built here with localedef
    from Debian's `locales` definitions) still gets supercluster-cpp's "1.2k" and "12.000000k"
    from the library, the extension and the Python fallback: the C++ stream MapLibre Native
    formats them with keeps the classic locale, and C's printf would not."""
    import subprocess
    import sys
    subprocess.run(["localedef", "-c", "-i", "de_DE", "-f", "UTF-8", str(tmp_path / "de_DE.UTF-8")], check=True)
    script = r'''
import ctypes, json, locale
locale.setlocale(locale.LC_NUMERIC, "de_DE.UTF-8")
assert locale.localeconv()["decimal_point"] == ","
import mapcore
from mapcore._lib import dicts, lib, take_bytes
from mapcore.cluster import _abbreviated, _bbox
crowds = [{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [
    lng + (i % 97) / 100, lat + (i // 97) / 200]}} for count, lng, lat in ((12000, 10, 10), (1250, -40, 20))
    for i in range(count)]
source = mapcore.DataSource(cluster=True)
source.add(crowds)
written = json.loads(take_bytes(lambda buf: lib.mc_source_get_clusters(
    source._handle, _bbox((-180, -85, 180, 85)), 0.0, 0, buf)))["features"]
items = (mapcore.ClusterItem * 2)(mapcore.ClusterItem(33, 0, 0, 1250), mapcore.ClusterItem(65, 0, 0, 12000))
made = dicts.assemble(ctypes.addressof(items), 2, [], True, True)
print(json.dumps([sorted(f["properties"]["point_count_abbreviated"] for f in written),
                  [f["properties"]["point_count_abbreviated"] for f in made],
                  [_abbreviated(1250, True), _abbreviated(12000, True)]]))
'''
    package = str(Path(mapcore.__file__).resolve().parents[1])
    env = dict(os.environ, LOCPATH=str(tmp_path),
               PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    library, extension, fallback = json.loads(out.stdout)
    assert library == ["1.2k", "12.000000k"]
    assert extension == fallback == ["1.2k", "12.000000k"]
