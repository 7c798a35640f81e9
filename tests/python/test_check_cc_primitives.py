"""scripts/check-cc-primitives.sh: protocol code uses the core's primitives only."""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-cc-primitives.sh"


def run(*dirs):
    return subprocess.run(["bash", str(SCRIPT), *map(str, dirs)], capture_output=True, text=True)


def test_the_protocols_pass():
    r = run()
    assert r.returncode == 0, r.stderr


def test_a_raw_atomic_and_a_sim_call_are_named(tmp_path):
    (tmp_path / "proto.h").write_text(
        "struct RowMeta { std::atomic<uint64_t> word; };\n"
        "// std::atomic<int> in a comment is no use\n"
        "inline void f(RowMeta& m) { sim::rmw(&m.word); }  // sim:: again, in a comment\n"
        "#include \"engine/sim/sim.h\"\n"
        "inline void g() { std::atomic_thread_fence(std::memory_order_seq_cst); }\n")
    r = run(tmp_path)
    assert r.returncode == 1
    named = [line for line in r.stderr.splitlines() if "proto.h:" in line]
    assert [line.split(":")[1] for line in named] == ["1", "3", "4"], r.stderr


def test_shared_words_pass(tmp_path):
    (tmp_path / "proto.h").write_text(
        "#include \"engine/core/shared.h\"\n"
        "struct RowMeta { ccb::Shared<uint64_t> word{0}; };\n"
        "inline uint64_t f(RowMeta& m) { return m.word.load(std::memory_order_acquire); }\n")
    assert run(tmp_path).returncode == 0


def test_a_protocols_own_tests_are_not_protocol_code(tmp_path):
    # engine/cc/<name>/*_test.cpp lives in the protocol's home; its threads
    # and flags are the test's, so a raw std::atomic there is allowed.
    (tmp_path / "proto_test.cpp").write_text("std::atomic<bool> done{false};\n")
    assert run(tmp_path).returncode == 0
    (tmp_path / "proto.cpp").write_text("std::atomic<bool> done{false};\n")
    assert run(tmp_path).returncode == 1
