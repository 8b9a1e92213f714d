// The CUDA Graph Trees call model (engine/runtime/cgt) call by call against the real PyTorch
// 2.11.0+cu130 runs on an H200 (tests/data/real/cudagraph_cases/truth.json, README.md there). The
// calls are built from what each program did; every expectation is read from truth.json.
#include "engine/runtime/cgt/cuda_graph_trees.h"

#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <stdexcept>

using namespace engine::runtime::cgt;
using nlohmann::json;

namespace {

const std::string kTruth = std::string(ACLGI_TEST_DATA_DIR) + "/real/cudagraph_cases/truth.json";

json loadTruth()
{
    std::ifstream in(kTruth);
    return json::parse(in);
}

const std::string kErrorPrefix = "RuntimeError: ";
const std::string kTraceStart = "Stack trace: ";
const std::string kTraceEnd = ". To prevent overwriting";

// The FX stack trace of the model's output, as the program's error read shows it (the same model
// forward for every call of a case); empty when the case has no error read.
std::string outputStackTrace(const json& c)
{
    for (const json& read : c["reads"]) {
        if (!read["error"].is_string())
            continue;
        const std::string error = read["error"];
        const size_t a = error.find(kTraceStart);
        const size_t b = error.find(kTraceEnd);
        if (a != std::string::npos && b != std::string::npos && b > a)
            return error.substr(a + kTraceStart.size(), b - a - kTraceStart.size());
    }
    return "";
}

// The call label a read is of: the first word of the read's label ("decode4 after decode5").
std::string readOf(const json& read)
{
    const std::string label = read["label"];
    return label.substr(0, label.find(' '));
}

Options optionsOf(const json& c)
{
    Options options;
    const json& fromTrace = c["config"]["from_trace"];
    if (fromTrace.contains("triton.cudagraph_dynamic_shape_warn_limit"))
        options.dynamic_shape_warn_limit = fromTrace["triton.cudagraph_dynamic_shape_warn_limit"].get<int64_t>();
    if (fromTrace.contains("triton.cudagraph_unexpected_rerecord_limit"))
        options.unexpected_rerecord_limit = fromTrace["triton.cudagraph_unexpected_rerecord_limit"].get<int64_t>();
    if (fromTrace.contains("inline_inbuilt_nn_modules"))
        options.inline_inbuilt_nn_modules = fromTrace["inline_inbuilt_nn_modules"].get<bool>();
    return options;
}

std::vector<Call> callsOf(const json& c)
{
    std::map<std::string, std::vector<uint64_t>> kv;
    for (const json& object : c["kv_objects"])
        kv[object["name"]] = object["kv_addrs"].get<std::vector<uint64_t>>();
    for (const json& object : c["kv_objects"])
        if (object["same_addresses_as"].is_string())
            kv[object["name"]] = kv.at(object["same_addresses_as"].get<std::string>());
    const std::string trace = outputStackTrace(c);
    std::vector<Call> calls;
    for (const json& x : c["calls"]) {
        Call call;
        call.label = x["label"];
        call.function = x["fn"];
        call.graph = x["served_by"];
        call.dynamicGraph = c["compiles"][call.graph]["dynamic_graph"].get<bool>();
        if (x["dynamic_size_key"].is_number())
            call.sizes = { x["dynamic_size_key"].get<int64_t>() };
        const uint64_t batch = x["batch"];
        const uint64_t seq = x["seq"];
        call.inputs.push_back({ "tokens", 0, batch * seq * 8, false, "" });
        call.inputs.push_back({ "pos", 0, seq * 8, false, "" });
        const std::vector<uint64_t>& addrs = kv.at(x["kv"].get<std::string>());
        for (size_t i = 0; i < addrs.size(); ++i)
            call.inputs.push_back({ "kv[" + std::to_string(i) + "]", addrs[i], batch * 4 * 64 * 64 * 4, true, "" });
        call.outputStackTrace = trace;
        calls.push_back(call);
    }
    for (const json& read : c["reads"]) {
        const std::string after = read["after_call"];
        for (size_t k = calls.size(); k-- > 0;)
            if (calls[k].label == after) {
                calls[k].readsAfter.push_back(readOf(read));
                break;
            }
    }
    return calls;
}

bool unrelated(const std::string& warning)
{
    return warning.find("UserWarning: TensorFloat32") != std::string::npos;
}

struct Tally {
    int calls = 0, callsOk = 0, reads = 0, readsOk = 0;
    std::vector<std::string> mismatches;
};

// Compares the model's results with the truth of one case; every difference is a mismatch line.
Tally compare(const json& c, const std::vector<Call>& calls, const std::vector<CallResult>& results)
{
    Tally t;
    const json& truth = c["calls"];
    std::map<std::string, size_t> firstIndex;
    for (size_t k = calls.size(); k-- > 0;)
        firstIndex[calls[k].label] = k;
    std::vector<std::vector<std::string>> expectedWarnings(calls.size());
    for (const json& w : c["warnings_detail"])
        for (const json& during : w["during"])
            if (!unrelated(w["text"]))
                expectedWarnings.at(firstIndex.at(during.get<std::string>())).push_back(w["text"]);
    for (size_t k = 0; k < calls.size(); ++k) {
        const json& x = truth[k];
        const CallResult& r = results[k];
        const std::string where = c["id"].get<std::string>() + " #" + std::to_string(k) + " " + calls[k].label;
        bool ok = true;
        if (x["action"] != actionName(r.action)) {
            t.mismatches.push_back(
                where + ": action " + actionName(r.action) + ", truth " + x["action"].get<std::string>());
            ok = false;
        }
        if (x.contains("replays_recording_of") && x["replays_recording_of"] != r.replays) {
            t.mismatches.push_back(
                where + ": replays " + r.replays + ", truth " + x["replays_recording_of"].get<std::string>());
            ok = false;
        }
        if (r.warnings != expectedWarnings[k]) {
            t.mismatches.push_back(where + ": " + std::to_string(r.warnings.size()) + " warnings, truth "
                + std::to_string(expectedWarnings[k].size()));
            ok = false;
        }
        ++t.calls;
        t.callsOk += ok ? 1 : 0;
    }
    static const std::regex newerValue("the value is (\\w+)'s output");
    for (const json& read : c["reads"]) {
        ++t.reads;
        const std::string of = readOf(read);
        const std::string after = read["after_call"];
        size_t k = calls.size();
        while (k-- > 0 && calls[k].label != after) { }
        const std::string where = c["id"].get<std::string>() + " read " + read["label"].get<std::string>();
        const ReadResult* got = nullptr;
        for (const ReadResult& rr : results.at(k).reads)
            if (rr.of == of)
                got = &rr;
        if (got == nullptr) {
            t.mismatches.push_back(where + ": not read");
            continue;
        }
        bool ok = true;
        if (!read["ok"].get<bool>()) {
            std::string error = read["error"];
            if (error.rfind(kErrorPrefix, 0) == 0)
                error = error.substr(kErrorPrefix.size());
            ok = got->status == ReadResult::Status::Error && got->text == error;
        } else {
            const std::string meaning = read["interpretation"];
            std::smatch m;
            if (meaning.find("silently overwritten") != std::string::npos) {
                ok = got->status == ReadResult::Status::OverwrittenSilently;
                if (std::regex_search(meaning, m, newerValue))
                    ok = ok && got->overwrittenBy == m[1].str();
            } else {
                ok = got->status == ReadResult::Status::Ok;
            }
        }
        if (!ok)
            t.mismatches.push_back(where + ": got status " + std::to_string(static_cast<int>(got->status)) + " by '"
                + got->overwrittenBy + "' text '" + got->text + "'");
        t.readsOk += ok ? 1 : 0;
    }
    return t;
}

TEST(CgtReal, EveryCallAndReadMatchesTheRealRuns)
{
    const json truth = loadTruth();
    ASSERT_EQ(truth["format"], "cudagraph-truth/1");
    ASSERT_GE(truth["cases"].size(), 3u);
    for (const json& c : truth["cases"]) {
        SCOPED_TRACE(c["id"].get<std::string>());
        const std::vector<Call> calls = callsOf(c);
        const std::vector<CallResult> results = simulateCalls(calls, optionsOf(c));
        ASSERT_EQ(results.size(), calls.size());
        const Tally t = compare(c, calls, results);
        std::cout << c["id"].get<std::string>() << ": calls " << t.callsOk << "/" << t.calls << ", reads " << t.readsOk
                  << "/" << t.reads << "\n";
        for (const std::string& m : t.mismatches)
            ADD_FAILURE() << m;
        EXPECT_EQ(t.callsOk, t.calls);
        EXPECT_EQ(t.readsOk, t.reads);
    }
}

// The comparison itself can fail: a truth with one action, one replayed recording, one warning
// and one read changed is reported.
TEST(CgtReal, ComparisonReportsAChangedTruth)
{
    json truth = loadTruth();
    for (json& c : truth["cases"]) {
        const std::vector<Call> calls = callsOf(c);
        const std::vector<CallResult> results = simulateCalls(calls, optionsOf(c));
        json changed = c;
        changed["calls"][1]["action"] = "replay";
        EXPECT_EQ(compare(changed, calls, results).callsOk, static_cast<int>(calls.size()) - 1);
        for (json& x : changed["calls"])
            if (x.contains("replays_recording_of"))
                x["replays_recording_of"] = "nobody";
        EXPECT_LT(compare(changed, calls, results).callsOk, static_cast<int>(calls.size()) - 1);
        if (!c["reads"].empty()) {
            json flipped = c;
            flipped["reads"][0]["ok"] = !flipped["reads"][0]["ok"].get<bool>();
            if (flipped["reads"][0]["error"].is_null())
                flipped["reads"][0]["error"] = "RuntimeError: x";
            EXPECT_EQ(compare(flipped, calls, results).readsOk, static_cast<int>(c["reads"].size()) - 1);
        }
    }
    json& warned = truth["cases"][1];
    ASSERT_EQ(warned["id"], "d_dynamic_warn");
    warned["warnings_detail"][1]["during"] = { "batch6_a" };
    const std::vector<Call> calls = callsOf(warned);
    EXPECT_EQ(
        compare(warned, calls, simulateCalls(calls, optionsOf(warned))).callsOk, static_cast<int>(calls.size()) - 2);
}

} // namespace

namespace {

// The first word of a truth label ("decode4 after mark_step_begin" -> "decode4").
std::string firstWord(const json& label)
{
    const std::string text = label;
    return text.substr(0, text.find(' '));
}

const json& caseF(const json& truth, const std::string& id)
{
    for (const json& c : truth["cases"])
        if (c["id"] == id)
            return c;
    throw std::runtime_error("no case " + id);
}

json loadTruthF()
{
    std::ifstream in(std::string(ACLGI_TEST_DATA_DIR) + "/real/cudagraph_cases_f/truth.json");
    return json::parse(in);
}

// d_rerecord_limit (cudagraph_cases_f): seven fresh K/V objects, all kept alive (so at seven distinct
// addresses), two calls each, with cudagraph_unexpected_rerecord_limit = 3 (from the case's config):
// six unexpected re-records, none skipped, because inline_inbuilt_nn_modules is on (R7).
TEST(CgtReal, RerecordLimitCaseNeverSkipsWithInlinedModules)
{
    const json truth = loadTruthF();
    const json& c = caseF(truth, "d_rerecord_limit");
    Options options;
    options.unexpected_rerecord_limit = c["config"]["inductor"]["triton.cudagraph_unexpected_rerecord_limit"];
    ASSERT_EQ(options.unexpected_rerecord_limit, 3);
    std::vector<Call> calls;
    for (const json& x : c["calls"]) {
        Call call;
        call.label = x["label"];
        call.function = "cm";
        call.graph = x["served_by"];
        const uint64_t object = calls.size() / 2; // new_kv{i}_a, new_kv{i}_b
        call.inputs = { { "tokens", 0, 8, false, "" }, { "pos", 0, 8, false, "" },
            { "kv[0]", 0x100000 * (object + 1), 65536, true, "" } };
        calls.push_back(call);
    }
    ASSERT_EQ(calls.size(), 14u);
    const std::vector<CallResult> results = simulateCalls(calls, options);
    for (size_t k = 0; k < calls.size(); ++k) {
        EXPECT_EQ(actionName(results[k].action), c["calls"][k]["action"].get<std::string>()) << calls[k].label;
        EXPECT_TRUE(results[k].warnings.empty()) << calls[k].label; // only the TF32 UserWarning in truth
    }
    for (const json& w : c["warnings"])
        EXPECT_TRUE(unrelated(w["text"])) << w["text"];
}

// d_mark_step (tests/data/real/cudagraph_cases_f, same decoder, PyTorch 2.11): the program as its
// script line says (decode0..3 kept, read decode2; mark_step_begin; decode4 kept, read decode3;
// decode5 without it, read decode4); actions and reads from that truth.json.
TEST(CgtReal, MarkStepCaseRecordsAChildInTheSameGeneration)
{
    const json truth = loadTruthF();
    const json& c = caseF(truth, "d_mark_step");
    ASSERT_EQ(c["calls"].size(), 6u);
    std::vector<Call> calls;
    for (const json& x : c["calls"]) {
        Call call;
        call.label = firstWord(x["label"]);
        call.function = "cm";
        call.graph = x["served_by"];
        call.inputs
            = { { "tokens", 0, 8, false, "" }, { "pos", 0, 8, false, "" }, { "kv[0]", 0x1000, 65536, true, "" } };
        calls.push_back(call);
    }
    for (size_t k = 0; k < 5; ++k)
        calls[k].holdsOutput = true; // ys and y4 stay alive
    calls[4].markStepBegin = true;
    for (const json& read : c["reads"])
        for (Call& call : calls)
            if (call.label == firstWord(read["after_call"]))
                call.readsAfter.push_back(firstWord(read["label"]));
    const std::vector<CallResult> results = simulateCalls(calls, Options {});
    for (size_t k = 0; k < calls.size(); ++k)
        EXPECT_EQ(actionName(results[k].action), c["calls"][k]["action"].get<std::string>()) << calls[k].label;
    size_t reads = 0;
    for (const json& read : c["reads"]) {
        const std::string after = firstWord(read["after_call"]);
        for (size_t k = 0; k < calls.size(); ++k) {
            if (calls[k].label != after)
                continue;
            for (const ReadResult& rr : results[k].reads) {
                if (rr.of != firstWord(read["label"]))
                    continue;
                ++reads;
                const std::string meaning = read["meaning"];
                const bool overwritten = meaning.find("overwritten") != std::string::npos;
                EXPECT_TRUE(read["ok"].get<bool>());
                EXPECT_EQ(rr.status, overwritten ? ReadResult::Status::OverwrittenSilently : ReadResult::Status::Ok)
                    << read["label"];
                if (overwritten) {
                    EXPECT_EQ(rr.overwrittenBy, after) << read["label"];
                }
            }
        }
    }
    EXPECT_EQ(reads, c["reads"].size());
}

} // namespace
