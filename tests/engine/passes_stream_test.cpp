// The stream, event, workspace and core-limit passes (torchair-behavior.md §4.6), in the shapes of
// TorchAir's own tests (tests/st/torchair_aclgraph_st.py: test_npu_stream_switch_with_stream_closure,
// test_npu_stream_switch_with_super_kernel_scope, test_npu_stream_record_wait_with_*,
// test_limit_core_num_in_aclgraph, test_aclgraph_core_limit_with_static_kernel), each behaviour with
// a graph where it fires and one where it must not.
#include "engine/graph/graph_diff.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::Arg;
using engine::PyValue;
using engine::config::Backend;
using engine::passes::PassReport;
using testing::HasSubstr;
using testing::Not;

namespace {

ordered_json strs(std::initializer_list<std::string> items)
{
    ordered_json a = ordered_json::array();
    for (const auto& s : items)
        a.push_back(str(s));
    return a;
}

ordered_json scope(const std::string& name, ordered_json keys, ordered_json values)
{
    return op(name, "air.scope_enter.default", ordered_json::array({ std::move(keys), std::move(values) }));
}

// torchair.scope.npu_stream_switch(label, priority)
ordered_json streamSwitch(const std::string& name, const std::string& label, const std::string& priority = "3")
{
    return scope(name, strs({ "_user_stream_label", "_user_stream_priority", "_enable_inner_parallel" }),
        strs({ label, priority, "True" }));
}

// torchair.scope.limit_core_num(aicore, vectorcore)
ordered_json limitCoreNum(const std::string& name, const std::string& aicore, const std::string& vectorcore)
{
    return scope(name, strs({ "_op_aicore_num", "_op_vectorcore_num" }), strs({ aicore, vectorcore }));
}

// torchair.scope.super_kernel(scope, options)
ordered_json superKernel(const std::string& name)
{
    return scope(name, strs({ "_super_kernel_scope", "_super_kernel_options" }), strs({ "1", "2" }));
}

ordered_json four()
{
    return { input("in1", { 3, 3 }), input("in2", { 3, 3 }), input("in3", { 3, 3 }), input("in4", { 3, 3 }) };
}

ordered_json mm(const std::string& name)
{
    return op(name, "aten.mm.default", { "in3", "in4" }, meta({ 3, 3 }));
}

ordered_json add(const std::string& name, const std::string& a = "in1", const std::string& b = "in2")
{
    return op(name, "aten.add.Tensor", { a, b }, meta({ 3, 3 }));
}

template <class Fn> PassReport run(engine::Graph& g, Fn fn)
{
    auto r = fn(g);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PassReport {};
}

PassReport closure(engine::Graph& g, Backend backend = Backend::TorchAir)
{
    return run(
        g, [&](engine::Graph& x) { return engine::passes::applyEventClosureWithMultiStream(x, options({}, backend)); });
}

// The names of the graph's nodes, in order, from `from` on.
std::vector<std::string> namesFrom(const engine::Graph& g, const std::string& from)
{
    std::vector<std::string> out;
    for (size_t i = size_t(g.find(from)); i < g.nodes.size(); ++i)
        out.push_back(g.nodes[i].name);
    return out;
}

std::string prevOf(const engine::Graph& g, const std::string& name)
{
    return g.nodes[size_t(g.find(name)) - 1].name;
}

// args as the diff prints them: "('g_in1', True)".
std::string argsText(const engine::Node& n)
{
    std::string s = "(";
    for (size_t i = 0; i < n.args.size(); ++i)
        s += (i ? ", " : "") + engine::argText(n.args[i]);
    return s + ")";
}

bool needExecute(const engine::Node& n)
{
    for (const auto& kw : n.kwargs)
        if (kw.first == "need_execute")
            return kw.second.kind == Arg::Kind::Bool && kw.second.b;
    return false;
}

int countTarget(const engine::Graph& g, const std::string& target)
{
    int k = 0;
    for (const auto& n : g.nodes)
        k += n.target == target ? 1 : 0;
    return k;
}

} // namespace

// ---- apply_event_closure_with_multi_stream ----

// test_npu_stream_switch_with_stream_closure: nested stream scopes '1' and '2'.
TEST(PassEventClosure, StreamScopesAreClosedByTaggedEvents)
{
    auto g = graph(four(),
        { add("add"), streamSwitch("enter1", "1"), mm("mm1"), streamSwitch("enter2", "2"), mm("mm2"),
            streamExit("exit2"), streamExit("exit1") },
        { "add", "mm1", "mm2" });
    auto r = closure(g);
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "tagged_event_record_default", "tagged_event_wait_default",
            "tagged_event_wait_default_1", "tagged_event_record_default_1", "tagged_event_record_default_2",
            "tagged_event_wait_default_2", "tagged_event_wait_default_3" }));
    // The first record goes ahead of every op (FX: before the first placeholder); its tag is
    // <graph id>_<first node>.
    EXPECT_EQ(prevOf(g, "tagged_event_record_default"), "in4");
    EXPECT_EQ(argsText(node(g, "tagged_event_record_default")), "('g_in1', True)");
    EXPECT_EQ(prevOf(g, "tagged_event_wait_default"), "enter1");
    EXPECT_EQ(prevOf(g, "tagged_event_wait_default_1"), "enter2");
    EXPECT_EQ(argsText(node(g, "tagged_event_wait_default_1")), "('g_in1', True)");
    // Each stream scope's exit: a record before it, its wait before the output (inner scope first).
    EXPECT_EQ(prevOf(g, "exit2"), "tagged_event_record_default_1");
    EXPECT_EQ(argsText(node(g, "tagged_event_record_default_1")), "('g_exit2', True)");
    EXPECT_EQ(prevOf(g, "exit1"), "tagged_event_record_default_2");
    EXPECT_EQ(namesFrom(g, "tagged_event_wait_default_2"),
        (std::vector<std::string> { "tagged_event_wait_default_2", "tagged_event_wait_default_3", "output" }));
    EXPECT_EQ(argsText(node(g, "tagged_event_wait_default_2")), "('g_exit2', True)");
    EXPECT_EQ(argsText(node(g, "tagged_event_wait_default_3")), "('g_exit1', True)");
    for (const char* s : { "enter1", "enter2", "exit1", "exit2" })
        EXPECT_TRUE(needExecute(node(g, s))) << s;

    const std::string log = logText(r);
    EXPECT_THAT(log, HasSubstr("End to insert event in graph[g].\n"));
    EXPECT_THAT(log, HasSubstr("Tagged event names are: [['g_in1', 'g_exit2', 'g_exit1']]\n"));
    EXPECT_THAT(log, HasSubstr("user_stream_label names are: [{'1', '2'}]\n"));
    EXPECT_THAT(log, HasSubstr("after apply_stream_event_closure optimization, multi_stream_enabled is True.\n"));
    EXPECT_THAT(log, HasSubstr("stream_scope_enter_nodes_dict={'enter1': '1', 'enter2': '2'}"));
    EXPECT_THAT(log, HasSubstr("stream_scope_exit_nodes_list=['exit2', 'exit1']"));
    EXPECT_THAT(log, Not(HasSubstr("No scope_enter node found")));
}

// test_npu_stream_switch_with_super_kernel_scope: super_kernel and limit_core_num scopes get no events;
// the stream scope inside the super kernel scope does.
TEST(PassEventClosure, OnlyUserStreamScopesGetEvents)
{
    auto g = graph(four(),
        { add("add"), superKernel("sk"), add("add1", "in3", "in4"), streamSwitch("enter", "2"), mm("mm"),
            streamExit("exit"), streamExit("sk_exit"), limitCoreNum("cl", "1", "2"), add("add2", "in3", "in4"),
            streamExit("cl_exit") },
        { "add", "add1", "mm", "add2" });
    closure(g);
    EXPECT_EQ(countTarget(g, "air.tagged_event_record.default"), 2);
    EXPECT_EQ(prevOf(g, "mm"), "tagged_event_wait_default");
    EXPECT_EQ(prevOf(g, "sk_exit"), "exit");
    EXPECT_EQ(prevOf(g, "cl_exit"), "add2");
    for (const char* s : { "sk", "enter", "exit", "sk_exit", "cl", "cl_exit" })
        EXPECT_TRUE(needExecute(node(g, s))) << s;
}

TEST(PassEventClosure, WithoutStreamScopesOnlyNeedExecuteIsSet)
{
    auto g = graph(four(), { superKernel("sk"), mm("mm"), streamExit("sk_exit") }, { "mm" });
    auto r = closure(g);
    EXPECT_TRUE(r.added.empty());
    EXPECT_TRUE(needExecute(node(g, "sk")));
    EXPECT_TRUE(needExecute(node(g, "sk_exit")));
    EXPECT_THAT(logText(r), HasSubstr("No scope_enter node found in graph[g], no need to insert event.\n"));
    EXPECT_THAT(logText(r), HasSubstr("multi_stream_enabled is False."));
    EXPECT_THAT(logText(r), Not(HasSubstr("End to insert event")));

    auto plain = graph(four(), { mm("mm") }, { "mm" });
    auto r2 = closure(plain);
    EXPECT_TRUE(r2.added.empty());
    EXPECT_THAT(logText(r2), HasSubstr("No scope_enter node found in graph[g]"));
}

// npugraph_ex: the scopes replace_stream_event_pass makes carry the stream's id, device index and
// type; the closure records and waits on those streams.
TEST(PassEventClosure, NpugraphExClosesEachStreamOnItsId)
{
    auto keys = strs({ "_user_stream_label", "_user_stream_priority", "_user_stream_id", "_user_stream_device_index",
        "_user_stream_device_type" });
    auto g = graph(four(),
        { add("add"), scope("enter_a", keys, strs({ "ga", "0", "7", "0", "20" })), mm("mm1"), streamExit("exit_a"),
            scope("enter_b", keys, strs({ "gb", "0", "7", "0", "20" })), mm("mm2"), streamExit("exit_b"),
            scope("enter_c", keys, strs({ "gc", "0", "9", "0", "20" })), mm("mm3"), streamExit("exit_c") },
        { "add", "mm1", "mm2", "mm3" });
    auto r = closure(g, Backend::NpugraphEx);
    // Streams 7 and 9 (ga and gb share stream 7): each wait is put right after the first record, so the
    // later stream's wait comes first.
    EXPECT_EQ(namesFrom(g, "tagged_event_record_default").at(1), "tagged_event_wait_on_stream_default_1");
    EXPECT_EQ(argsText(node(g, "tagged_event_wait_on_stream_default")), "('g_in1', '7', '0', '20', True)");
    EXPECT_EQ(argsText(node(g, "tagged_event_wait_on_stream_default_1")), "('g_in1', '9', '0', '20', True)");
    EXPECT_EQ(namesFrom(g, "tagged_event_record_on_stream_default"),
        (std::vector<std::string> { "tagged_event_record_on_stream_default", "tagged_event_wait_default",
            "tagged_event_record_on_stream_default_1", "tagged_event_wait_default_1", "output" }));
    EXPECT_EQ(argsText(node(g, "tagged_event_record_on_stream_default")),
        "('g_stream_id_7_device_index_0_device_type_20', '7', '0', '20', True)");
    EXPECT_EQ(
        argsText(node(g, "tagged_event_wait_default_1")), "('g_stream_id_9_device_index_0_device_type_20', True)");
    // No record before the exits: the scopes had stream ids.
    EXPECT_EQ(prevOf(g, "exit_a"), "mm1");
    const std::string log = logText(r);
    EXPECT_THAT(
        log, HasSubstr("Collected stream info for label ga: {'stream_id': 7, 'device_index': 0, 'device_type': 20}\n"));
    EXPECT_THAT(log, HasSubstr("multi_stream_enabled is True."));

    // The torchair backend treats the same scopes by their exits.
    auto t = graph(four(),
        { scope("enter_a", keys, strs({ "ga", "0", "7", "0", "20" })), mm("mm1"), streamExit("exit_a") }, { "mm1" });
    closure(t);
    EXPECT_EQ(countTarget(t, "air.tagged_event_record_on_stream.default"), 0);
    EXPECT_EQ(prevOf(t, "exit_a"), "tagged_event_record_default_1");
}

// npugraph_ex: a stream scope without a stream id (a user's custom pass) gets torchair's closure, once
// per label: the wait after its first enter, the record before its last exit.
TEST(PassEventClosure, NpugraphExUserPassScopesAreClosedPerLabel)
{
    auto g = graph(four(),
        { streamEnter("e1", "s"), mm("mm1"), streamExit("x1"), streamEnter("e2", "s"), mm("mm2"), streamExit("x2") },
        { "mm1", "mm2" });
    auto r = closure(g, Backend::NpugraphEx);
    EXPECT_EQ(prevOf(g, "tagged_event_wait_default"), "e1");
    EXPECT_EQ(prevOf(g, "mm2"), "e2");
    EXPECT_EQ(prevOf(g, "x1"), "mm1");
    EXPECT_EQ(prevOf(g, "x2"), "tagged_event_record_default_1");
    EXPECT_EQ(argsText(node(g, "tagged_event_record_default_1")), "('g_x2', True)");
    EXPECT_THAT(logText(r), HasSubstr("multi_stream_enabled is False."));
    EXPECT_THAT(logText(r), HasSubstr("Tagged event names are: [['g_in1', 'g_x2']]"));
}

// ---- apply_event_record ----

namespace {

PassReport eventRecord(engine::Graph& g)
{
    return run(g, [](engine::Graph& x) { return engine::passes::applyEventRecord(x, options()); });
}

ordered_json waitOn(const std::string& name, std::initializer_list<ordered_json> tensors)
{
    return op(name, "air.wait.default", ordered_json::array({ list(tensors) }));
}

ordered_json recordOp(const std::string& name)
{
    return op(name, "air.record.default", ordered_json::array());
}

ordered_json unary(const std::string& name, const std::string& target, const std::string& x)
{
    return op(name, target, { x }, meta({ 3, 3 }));
}

} // namespace

// test_npu_stream_record_wait_with_wait
TEST(PassEventRecord, WaitedProducersGetOneRecordEach)
{
    auto g = graph({ input("x", { 3, 3 }) },
        { op("mm", "aten.mm.default", { "x", "x" }, meta({ 3, 3 })), streamEnter("e1", "1"), waitOn("wait", { "mm" }),
            unary("abs1", "aten.abs.default", "mm"), op("add1", "aten.add.Tensor", { "abs1", 1 }, meta({ 3, 3 })),
            streamExit("x1"), streamEnter("e2", "2"), waitOn("wait_1", { "mm", "abs1" }),
            op("sub", "aten.sub.Tensor", { "add1", "mm" }, meta({ 3, 3 })), streamExit("x2") },
        { "sub" });
    auto r = eventRecord(g);
    EXPECT_EQ(r.added, (std::vector<std::string> { "record_default", "record_default_1" }));
    EXPECT_EQ(prevOf(g, "record_default"), "mm");
    EXPECT_EQ(prevOf(g, "record_default_1"), "abs1");
    EXPECT_EQ(argsText(node(g, "wait")), "([record_default])");
    EXPECT_EQ(argsText(node(g, "wait_1")), "([record_default, record_default_1])");
    EXPECT_THAT(logText(r), HasSubstr("End insert record node in graph:[g]\n"));
}

// test_npu_stream_record_wait_with_record: waits on the user's own records add nothing.
TEST(PassEventRecord, RecordsOfTheUserAreKept)
{
    auto g = graph({ input("x", { 3, 3 }) },
        { op("mm", "aten.mm.default", { "x", "x" }, meta({ 3, 3 })), recordOp("record"), streamEnter("e1", "1"),
            waitOn("wait", { "record" }), unary("abs1", "aten.abs.default", "mm"), recordOp("record_1"),
            streamExit("x1"), streamEnter("e2", "2"), waitOn("wait_1", { "record_1" }),
            op("add1", "aten.add.Tensor", { "abs1", 1 }, meta({ 3, 3 })), recordOp("record_2"), streamExit("x2"),
            streamEnter("e3", "3"), waitOn("wait_2", { "record_1", "record_2" }),
            op("sub", "aten.sub.Tensor", { "abs1", "add1" }, meta({ 3, 3 })), streamExit("x3") },
        { "sub" });
    auto r = eventRecord(g);
    EXPECT_TRUE(r.added.empty());
    EXPECT_EQ(argsText(node(g, "wait")), "([record])");
    EXPECT_EQ(argsText(node(g, "wait_2")), "([record_1, record_2])");
    EXPECT_THAT(logText(r), HasSubstr("End insert record node in graph:[g]\n"));
}

// test_npu_stream_record_wait_with_record_wait: a producer waited for twice gets one record.
TEST(PassEventRecord, RecordsAndProducersMixed)
{
    auto g = graph({ input("x", { 3, 3 }) },
        { op("mm", "aten.mm.default", { "x", "x" }, meta({ 3, 3 })), recordOp("record"), streamEnter("e1", "1"),
            waitOn("wait", { "record" }), unary("abs1", "aten.abs.default", "mm"), streamExit("x1"),
            streamEnter("e2", "2"), waitOn("wait_1", { "abs1" }),
            op("add1", "aten.add.Tensor", { "abs1", 1 }, meta({ 3, 3 })), recordOp("record_1"), streamExit("x2"),
            streamEnter("e3", "3"), waitOn("wait_2", { "abs1", "record_1" }),
            op("sub", "aten.sub.Tensor", { "abs1", "add1" }, meta({ 3, 3 })), streamExit("x3") },
        { "sub" });
    auto r = eventRecord(g);
    EXPECT_EQ(r.added, (std::vector<std::string> { "record_default" }));
    EXPECT_EQ(argsText(node(g, "wait_1")), "([record_default])");
    EXPECT_EQ(argsText(node(g, "wait_2")), "([record_default, record_1])");
}

// ---- resolve_default_stream_markers ----

namespace {

PassReport markers(engine::Graph& g)
{
    return run(g, [](engine::Graph& x) { return engine::passes::resolveDefaultStreamMarkers(x, options()); });
}

} // namespace

TEST(PassDefaultStreamMarkers, MarkersBecomeCurrentStreamAttributes)
{
    auto g = graph({ input("x", { 3, 3 }) },
        { op("rec", "air.tagged_event_record_on_stream.default",
              { str("t"), str("DEFAULT_STREAM_ID_MARKER"), str("DEFAULT_DEVICE_INDEX_MARKER"),
                  str("DEFAULT_DEVICE_TYPE_MARKER"), true }),
            op("sws", "air.tagged_stream_wait_stream.default",
                { str("7"), str("0"), str("20"), str("DEFAULT_STREAM_ID_MARKER"), str("DEFAULT_DEVICE_INDEX_MARKER"),
                    str("DEFAULT_DEVICE_TYPE_MARKER") }),
            op("other", "air.tagged_event_record.default", { str("DEFAULT_STREAM_ID_MARKER"), true }),
            unary("abs1", "aten.abs.default", "x") },
        { "abs1" });
    auto r = markers(g);
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "current_stream", "getattr", "str", "getattr_1", "str_1", "getattr_2", "str_2" }));
    EXPECT_EQ(prevOf(g, "current_stream"), "x");
    EXPECT_EQ(node(g, "current_stream").target, "torch.npu.current_stream");
    EXPECT_EQ(argsText(node(g, "getattr_1")), "(current_stream, 'device_index')");
    EXPECT_EQ(argsText(node(g, "str_2")), "(getattr_2)");
    EXPECT_EQ(argsText(node(g, "rec")), "('t', str, str_1, str_2, True)");
    EXPECT_EQ(argsText(node(g, "sws")), "('7', '0', '20', str, str_1, str_2)");
    // tagged_event_record is not on the white list.
    EXPECT_EQ(argsText(node(g, "other")), "('DEFAULT_STREAM_ID_MARKER', True)");
    const std::string log = logText(r);
    EXPECT_THAT(log, HasSubstr("Found default stream markers in graph, inserting current_stream nodes...\n"));
    EXPECT_THAT(log, HasSubstr("Replaced default stream markers in node: rec\n"));
    EXPECT_THAT(log, HasSubstr("Replaced default stream markers in node: sws\n"));
    EXPECT_THAT(log, Not(HasSubstr("node: other")));
}

// Only top-level string arguments are looked at: a marker in scope_enter's value list stays.
TEST(PassDefaultStreamMarkers, MarkersInListsAndOtherOpsStay)
{
    auto g = graph({ input("x", { 3, 3 }) },
        { scope("enter", strs({ "_user_stream_label", "_user_stream_id" }), strs({ "s", "DEFAULT_STREAM_ID_MARKER" })),
            unary("abs1", "aten.abs.default", "x"), streamExit("exit"),
            op("other", "air.tagged_event_record.default", { str("DEFAULT_STREAM_ID_MARKER"), true }) },
        { "abs1" });
    auto r = markers(g);
    EXPECT_TRUE(r.added.empty());
    EXPECT_THAT(
        logText(r), HasSubstr("No default stream markers found in graph, skip resolve_default_stream_markers pass\n"));
}

// ---- replace_dynamic_workspace_ops ----

namespace {

PassReport workspace(engine::Graph& g)
{
    return run(g, [](engine::Graph& x) { return engine::passes::replaceDynamicWorkspaceOps(x, options()); });
}

// q/k/v [s0, 8, 128] f16; attn = npu_fused_infer_attention_score(q, k, v, actual_seq_lengths=[s]),
// whose two results are read through getitem.
engine::Graph attention(ordered_json attnMeta, long long workspaceBytes = 4096)
{
    auto attn = op("attn", "npu.npu_fused_infer_attention_score.default", { "q", "k", "v" }, std::move(attnMeta),
        { { "actual_seq_lengths", list({ "s" }) }, { "num_heads", 8 } });
    if (workspaceBytes)
        attn["workspace_bytes"] = workspaceBytes;
    return graph(
        { symInput("s", "s0"), input("q", { "s0", 8, 128 }, "user_input", "f16"),
            input("k", { "s0", 8, 128 }, "user_input", "f16"), input("v", { "s0", 8, 128 }, "user_input", "f16") },
        { attn, op("out0", "operator.getitem", { "attn", 0 }, meta({ "s0", 8, 128 }, "f16")),
            op("lse", "operator.getitem", { "attn", 1 }, meta({ "s0", 8, 1 }, "f32")) },
        { "out0", "lse" }, true);
}

ordered_json attnMeta(ordered_json firstShape = ordered_json::array({ "s0", 8, 128 }))
{
    return ordered_json::array({ meta(std::move(firstShape), "f16"), meta({ "s0", 8, 1 }, "f32") });
}

} // namespace

TEST(PassDynamicWorkspace, AttentionGetsStaticWorkspaceAndOutBuffers)
{
    auto g = attention(attnMeta());
    auto r = workspace(g);
    EXPECT_EQ(r.removed, (std::vector<std::string> { "attn" }));
    EXPECT_EQ(r.added,
        (std::vector<std::string> { "_npu_fused_infer_attention_score_get_max_workspace_default", "empty", "empty_1",
            "npu_fused_infer_attention_score_out" }));
    EXPECT_EQ(rewrittenTo(r, "attn"), "npu.npu_fused_infer_attention_score.out");

    const auto& ws = node(g, "_npu_fused_infer_attention_score_get_max_workspace_default");
    EXPECT_EQ(argsText(ws), "(q, k, v)");
    ASSERT_EQ(ws.outputs.size(), 1u);
    EXPECT_EQ(ws.outputs[0].shape[0].text(), "4096");
    EXPECT_EQ(ws.outputs[0].dtype, engine::DType::U8);
    // Sizes that are a SymInt input's symbol become that input.
    EXPECT_EQ(argsText(node(g, "empty")), "([s, 8, 128])");
    EXPECT_EQ(refs(node(g, "empty").args), "[s]");
    const auto& run = node(g, "npu_fused_infer_attention_score_out");
    EXPECT_EQ(run.kwargs.size(), 4u);
    EXPECT_EQ(run.kwargs[2].first, "workspace");
    EXPECT_EQ(run.kwargs[3].first, "out");
    EXPECT_EQ(engine::argText(run.kwargs[3].second), "[empty, empty_1]");
    EXPECT_EQ(run.workspaceBytes.text(), "0");
    EXPECT_EQ(refs(node(g, "out0").args), "npu_fused_infer_attention_score_out");

    const std::string log = logText(r);
    EXPECT_THAT(log,
        HasSubstr("Start to replace dynamic workspace ops to static workspace for ops[dict_keys([<OpOverload(op='npu."
                  "npu_fused_infer_attention_score', overload='default')>, <OpOverload(op='npu.npu_fused_infer_"
                  "attention_score_v2', overload='default')>])] in graph[g].\n"));
    EXPECT_THAT(
        log, HasSubstr("Construct fx node shape [s, 8, 128] from original meta shape torch.Size([s0, 8, 128]) .\n"));
    EXPECT_THAT(log,
        HasSubstr("Construct empty out sym shape [s, 8, 1] for fx node[name: attn][type: "
                  "npu.npu_fused_infer_attention_score.default].\n"));
    EXPECT_THAT(log,
        HasSubstr(
            "Original fx node[name: attn][type: npu.npu_fused_infer_attention_score.default] is replaced by "
            "workspace_node[name: _npu_fused_infer_attention_score_get_max_workspace_default][type: "
            "npu._npu_fused_infer_attention_score_get_max_workspace.default] and run_node[name: "
            "npu_fused_infer_attention_score_out][type: npu.npu_fused_infer_attention_score.out] in graph[g].\n"));
    EXPECT_THAT(log, HasSubstr("End to replace dynamic workspace ops in graph[g].\n"));
}

// The static workspace is memory the simulator sees: it lives from the workspace op to the .out op,
// and the results are the empty buffers, not new ones.
TEST(PassDynamicWorkspace, WorkspaceIsMemoryInTheSimulation)
{
    const engine::SymbolValues syms = { { "s0", 16 } };
    auto measure = [&](long long ws, bool replace) {
        auto g = attention(attnMeta(), ws);
        if (replace)
            workspace(g);
        auto m = engine::passes::measureMemory(g, options(), syms);
        EXPECT_TRUE(m.measured) << m.note;
        return m.peakBytes;
    };
    const uint64_t mib = 1 << 20;
    EXPECT_EQ(measure(8 * mib, true), measure(8 * mib, false));
    EXPECT_GE(measure(8 * mib, true), measure(0, true) + 8 * mib);
}

TEST(PassDynamicWorkspace, UnknownWorkspaceSizeIsSaid)
{
    auto g = attention(attnMeta(), 0);
    auto r = workspace(g);
    EXPECT_TRUE(node(g, "_npu_fused_infer_attention_score_get_max_workspace_default").outputs.empty());
    EXPECT_THAT(logText(r), HasSubstr("is unknown (the graph gives attn no workspace_bytes)"));
}

TEST(PassDynamicWorkspace, NodesItCannotRebuildAreLeftAlone)
{
    auto noMeta = attention(nullptr);
    auto r1 = workspace(noMeta);
    EXPECT_TRUE(r1.added.empty());
    EXPECT_THAT(skipReason(r1, "attn"), HasSubstr("no tensor metadata"));

    auto compound = attention(attnMeta(ordered_json::array({ "2*s0", 8, 128 })));
    auto r2 = workspace(compound);
    EXPECT_TRUE(r2.added.empty());
    EXPECT_THAT(skipReason(r2, "attn"), HasSubstr("the output size 2*s0 is an expression"));

    auto unbound = attention(attnMeta(ordered_json::array({ "s1", 8, 128 })));
    auto r3 = workspace(unbound);
    EXPECT_TRUE(r3.added.empty());
    EXPECT_EQ(skipReason(r3, "attn"),
        "RuntimeError: Unexpected sym output shape s1 which is not in all sym inputs dict {s0: s} of graph[g].");
}

TEST(PassDynamicWorkspace, OtherOpsAreNotTouched)
{
    auto g = graph(four(), { mm("mm") }, { "mm" });
    auto r = workspace(g);
    EXPECT_TRUE(r.added.empty());
    EXPECT_TRUE(r.removed.empty());
    EXPECT_THAT(logText(r), HasSubstr("End to replace dynamic workspace ops in graph[g].\n"));
    EXPECT_THAT(logText(r), Not(HasSubstr("is replaced by")));
}

// ---- replace_core_limit_nodes ----

namespace {

PassReport coreLimit(engine::Graph& g, bool staticKernel = false, const std::string& cann = "")
{
    std::vector<std::pair<std::string, PyValue>> settings;
    if (staticKernel)
        settings.emplace_back("static_kernel_compile", PyValue::boolean(true));
    engine::passes::PassEnvironment env;
    env.cann = cann;
    const auto o = options(settings);
    return run(g, [&](engine::Graph& x) { return engine::passes::replaceCoreLimitNodes(x, o, env); });
}

// test_limit_core_num_in_aclgraph's check_graph: scopes still pair up; every get_stream_limit follows a
// current_stream and is followed by two getitems and a set_stream_limit; twice as many sets as gets.
void checkGraph(const engine::Graph& g)
{
    int scopes = 0, sets = 0, gets = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const auto& n = g.nodes[i];
        scopes += n.target == "air.scope_enter.default" ? 1 : n.target == "air.scope_exit.default" ? -1 : 0;
        if (n.target == "torch.npu.get_stream_limit") {
            EXPECT_EQ(g.nodes[i - 1].target, "torch.npu.current_stream");
            EXPECT_EQ(g.nodes[i + 1].target, g.nodes[i + 2].target);
            EXPECT_EQ(g.nodes[i + 3].target, "torch.npu.set_stream_limit");
            ++gets;
        }
        sets += n.target == "torch.npu.set_stream_limit" ? 1 : 0;
    }
    EXPECT_EQ(scopes, 0);
    EXPECT_GT(gets, 0);
    EXPECT_EQ(sets, 2 * gets);
}

} // namespace

// Model1: limit_core_num(2, 4) around limit_core_num(12, 24).
TEST(PassCoreLimit, LimitCoreNumScopesBecomeStreamLimitCalls)
{
    auto g = graph(four(),
        { add("add"), limitCoreNum("cl1", "2", "4"), mm("mm1"), limitCoreNum("cl2", "12", "24"), mm("mm2"),
            streamExit("x2"), streamExit("x1") },
        { "add", "mm1", "mm2" });
    auto r = coreLimit(g);
    checkGraph(g);
    EXPECT_EQ(r.removed, (std::vector<std::string> { "cl1", "cl2", "x2", "x1" }));
    EXPECT_EQ(rewrittenTo(r, "cl1"), "torch.npu.set_stream_limit");
    EXPECT_EQ(namesFrom(g, "current_stream").front(), "current_stream");
    EXPECT_EQ(prevOf(g, "current_stream"), "add");
    EXPECT_EQ(namesFrom(g, "current_stream").at(5), "mm1");
    EXPECT_EQ(argsText(node(g, "get_stream_limit")), "(current_stream)");
    EXPECT_EQ(argsText(node(g, "getitem")), "(get_stream_limit, 'cube_core_num')");
    EXPECT_EQ(argsText(node(g, "getitem_1")), "(get_stream_limit, 'vector_core_num')");
    EXPECT_EQ(argsText(node(g, "set_stream_limit")), "(current_stream, 2, 4)");
    EXPECT_EQ(argsText(node(g, "set_stream_limit_1")), "(current_stream_1, 12, 24)");
    // Leaving a scope restores the limits saved on entering it.
    EXPECT_EQ(prevOf(g, "set_stream_limit_2"), "mm2");
    EXPECT_EQ(argsText(node(g, "set_stream_limit_2")), "(current_stream_1, getitem_2, getitem_3)");
    EXPECT_EQ(argsText(node(g, "set_stream_limit_3")), "(current_stream, getitem, getitem_1)");
    EXPECT_THAT(logText(r), Not(HasSubstr("UserWarning: When both")));
}

// Model2: a stream switched inside a core-limited scope gets the scope's limits on its own stream.
TEST(PassCoreLimit, StreamSwitchInsideCoreLimitGetsItsLimits)
{
    auto g = graph(four(),
        { add("add"), limitCoreNum("cl", "2", "4"), mm("mm1"), streamSwitch("enter", "1"), mm("mm2"),
            streamExit("exit"), streamExit("x") },
        { "add", "mm1", "mm2" });
    coreLimit(g);
    checkGraph(g);
    EXPECT_TRUE(has(g, "enter"));
    EXPECT_TRUE(has(g, "exit"));
    EXPECT_EQ(namesFrom(g, "enter"),
        (std::vector<std::string> { "enter", "current_stream_1", "get_stream_limit_1", "getitem_3", "getitem_2",
            "set_stream_limit_1", "mm2", "exit", "set_stream_limit_2", "set_stream_limit_3", "output" }));
    EXPECT_EQ(argsText(node(g, "getitem_3")), "(get_stream_limit_1, 'cube_core_num')");
    EXPECT_EQ(argsText(node(g, "set_stream_limit_1")), "(current_stream_1, 2, 4)");
    EXPECT_EQ(argsText(node(g, "set_stream_limit_2")), "(current_stream_1, getitem_3, getitem_2)");
}

// Model3 and a stream switch outside any core limit: nothing to do for those scopes.
TEST(PassCoreLimit, OtherScopesAreKept)
{
    auto g = graph(four(),
        { add("add"), limitCoreNum("cl", "2", "4"), mm("mm1"), superKernel("sk"), mm("mm2"), streamExit("sk_exit"),
            streamExit("x") },
        { "add", "mm1", "mm2" });
    coreLimit(g);
    checkGraph(g);
    EXPECT_EQ(prevOf(g, "mm2"), "sk");
    EXPECT_EQ(prevOf(g, "set_stream_limit_1"), "sk_exit");

    auto plain = graph(four(), { streamSwitch("enter", "1"), mm("mm"), streamExit("exit") }, { "mm" });
    auto r = coreLimit(plain, true, "8.5.0");
    EXPECT_TRUE(r.added.empty());
    EXPECT_TRUE(r.removed.empty());
    EXPECT_THAT(logText(r), Not(HasSubstr("UserWarning: When both")));
}

// test_aclgraph_core_limit_with_static_kernel, with the CANN versions on either side of 9.0.0.
TEST(PassCoreLimit, StaticKernelIsSwitchedOffBelowCann9)
{
    auto model = [] {
        return graph({ input("x", { 5, 5 }) },
            { limitCoreNum("cl", "12", "24"), unary("sq", "aten.square.default", "x"), streamExit("x1") }, { "sq" });
    };
    const std::string warning = "UserWarning: When both static shape kernel and core limit are enabled, only core "
                                "limit will take effect, static shape kernel will be disabled. CANN 9.0.0 or later "
                                "supports enabling both features.\n";
    for (const char* old : { "8.5.0", "8.3.RC1", "9.0.RC1" }) {
        auto g = model();
        auto r = coreLimit(g, true, old);
        EXPECT_THAT(logText(r), HasSubstr(warning)) << old;
        EXPECT_THAT(logText(r), HasSubstr("_aclnn_static_shape_kernel = False")) << old;
    }
    for (const char* recent : { "9.0.0", "9.1.RC1" }) {
        auto g = model();
        auto r = coreLimit(g, true, recent);
        EXPECT_THAT(logText(r), Not(HasSubstr("UserWarning: When both"))) << recent;
        EXPECT_THAT(logText(r), HasSubstr("stays on")) << recent;
    }
    auto off = model();
    EXPECT_THAT(logText(coreLimit(off, false, "8.5.0")), Not(HasSubstr("UserWarning: When both")));
}

TEST(PassCoreLimit, UnknownCannIsSaidAndDoesNotWarn)
{
    auto g = graph({ input("x", { 5, 5 }) },
        { limitCoreNum("cl", "12", "24"), unary("sq", "aten.square.default", "x"), streamExit("x1") }, { "sq" });
    auto r = coreLimit(g, true, "");
    EXPECT_THAT(logText(r), Not(HasSubstr("UserWarning: When both")));
    EXPECT_THAT(logText(r), HasSubstr("aclgraph-inspector: "));
    EXPECT_THAT(logText(r), HasSubstr("--cann"));

    auto bad = graph({ input("x", { 5, 5 }) },
        { limitCoreNum("cl", "12", "24"), unary("sq", "aten.square.default", "x"), streamExit("x1") }, { "sq" });
    auto r2 = coreLimit(bad, true, "nine");
    EXPECT_THAT(logText(r2), HasSubstr("reads no version from 'nine' (it counts below every version)"));
    EXPECT_THAT(logText(r2), HasSubstr("UserWarning: When both static shape kernel"));
}
