// A scenario's `operators`: custom op schemas and register_inplaceable_npu_op registrations, read by
// the scenario reader and seen by the passes (docs/scenario-format.md, docs/passes.md).
#include "engine/passes/op_schemas.h"
#include "passes_test_util.h"

#include <gmock/gmock.h>

using namespace passtest;
using engine::passes::PassReport;
using testing::HasSubstr;

namespace {

// A scenario with `operators` and one graph; its first graph and operators.
struct Read {
    engine::Graph graph;
    std::shared_ptr<const engine::UserOps> ops;
    std::vector<std::string> diagnostics;
};

ordered_json scenarioJson(ordered_json operators, ordered_json inputs, ordered_json nodes, ordered_json outputs)
{
    ordered_json g = { { "id", "g" }, { "inputs", std::move(inputs) }, { "nodes", std::move(nodes) },
        { "outputs", std::move(outputs) } };
    ordered_json s = { { "format", "aclgraph-inspector-scenario" }, { "version", 1 }, { "name", "user ops" } };
    if (!operators.is_null())
        s["operators"] = std::move(operators);
    s["graphs"] = ordered_json::array({ g });
    return s;
}

Read read(const ordered_json& s)
{
    auto parsed = engine::scenario::parseScenario(s.dump(), "ops.json");
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().toString());
    if (!parsed.ok())
        return {};
    return { parsed->graphs.at(0), parsed->operators, parsed->diagnostics };
}

std::string readError(const ordered_json& s)
{
    auto parsed = engine::scenario::parseScenario(s.dump(), "ops.json");
    return parsed.ok() ? std::string("(read)") : parsed.error().toString();
}

const ordered_json kScaleSchemas
    = { "mylib::scale(Tensor x, float s) -> Tensor", "mylib::scale_(Tensor(a!) x, float s) -> Tensor(a!)",
          "mylib::scale.out(Tensor x, float s, *, Tensor(a!) out) -> Tensor(a!)" };

// a = x * 2 (an intermediate), b = mylib.scale(a, 0.5), returned.
ordered_json scaleNodes()
{
    return ordered_json::array({ op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
        op("b", "mylib.scale.default", { "a", 0.5 }, meta({ 4, 4 })) });
}

engine::passes::PipelineResult runWith(const Read& r)
{
    engine::passes::PassEnvironment env;
    env.userOps = r.ops;
    auto result = engine::passes::runReduceOverheadPasses(r.graph, options(), {}, env);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().toString());
    return result.ok() ? std::move(result.value()) : engine::passes::PipelineResult {};
}

const engine::Node& finalNode(const engine::passes::PipelineResult& r, const std::string& name)
{
    return node(r.stages.back(), name);
}

} // namespace

TEST(UserOps, DeclaredCustomOpIsReinplaced)
{
    auto declared
        = read(scenarioJson({ { "schemas", kScaleSchemas } }, { input("x", { 4, 4 }) }, scaleNodes(), { "b" }));
    ASSERT_TRUE(declared.ops);
    auto r = runWith(declared);
    EXPECT_EQ(finalNode(r, "b").target, "mylib.scale_.default");

    // The same graph without the declaration: not in the table, left alone and said so.
    auto bare = read(scenarioJson(nullptr, { input("x", { 4, 4 }) }, scaleNodes(), { "b" }));
    EXPECT_FALSE(bare.ops);
    auto plain = runWith(bare);
    EXPECT_EQ(finalNode(plain, "b").target, "mylib.scale.default");
    const PassReport* reinplace = engine::passes::findPass(plain, "reinplace_inplaceable_ops_pass");
    ASSERT_TRUE(reinplace);
    EXPECT_THAT(skipReason(*reinplace, "b"), HasSubstr("not in the operator table"));
    // The declaration is seen only while a run has it: afterwards the table alone answers.
    EXPECT_EQ(engine::passes::findSchema("mylib.scale.default"), nullptr);
}

TEST(UserOps, DeclaredOutOverloadServesRemoveCatOps)
{
    // cat([scale(a), scale(c)]) of fresh results: with scale.out declared, each writes into a slice.
    auto nodes = ordered_json::array({ op("a", "aten.mul.Tensor", { "x", 2 }, meta({ 2, 4 })),
        op("c", "aten.mul.Tensor", { "x", 3 }, meta({ 2, 4 })),
        op("s1", "mylib.scale.default", { "a", 0.5 }, meta({ 2, 4 })),
        op("s2", "mylib.scale.default", { "c", 0.5 }, meta({ 2, 4 })),
        op("cat", "aten.cat.default", list({ list({ "s1", "s2" }) }), meta({ 4, 4 })) });
    auto declared = read(scenarioJson({ { "schemas", kScaleSchemas } }, { input("x", { 2, 4 }) }, nodes, { "cat" }));
    auto r = runWith(declared);
    const PassReport* cat = engine::passes::findPass(r, "remove_cat_ops");
    ASSERT_TRUE(cat);
    EXPECT_EQ(cat->removed, (std::vector<std::string> { "s1", "s2", "cat" }));
    EXPECT_THAT(logText(*cat), HasSubstr("remove_cat_ops: Optimized 1 cat node(s)"));

    auto bare = read(scenarioJson(nullptr, { input("x", { 2, 4 }) }, nodes, { "cat" }));
    auto plain = runWith(bare);
    EXPECT_THAT(logText(*engine::passes::findPass(plain, "remove_cat_ops")),
        HasSubstr("Skip cat: Input 0 op mylib.scale.default has no .out variant"));
}

TEST(UserOps, RegisteredInplaceableNpuOp)
{
    // register_inplaceable_npu_op("my_update_functional", "my_update", mutated_arg=[1]): the functional
    // op returns (y, cache'); reinplacing targets the in-place op when the cache is an intermediate.
    const ordered_json schemas = { "npu::my_update_functional(Tensor x, Tensor cache) -> (Tensor, Tensor)",
        "npu::my_update(Tensor x, Tensor(a!) cache) -> Tensor" };
    auto nodes = ordered_json::array({ op("c", "aten.mul.Tensor", { "x", 2 }, meta({ 4, 4 })),
        op("n", "npu.my_update_functional.default", { "x", "c" }, list({ meta({ 4, 4 }), meta({ 4, 4 }) })),
        op("y", "operator.getitem", { "n", 0 }, meta({ 4, 4 })) });
    ordered_json registered = { { "schemas", schemas },
        { "inplaceable",
            ordered_json::array({ { { "functional", "my_update_functional" }, { "inplace", "my_update" },
                { "mutated_args", ordered_json::array({ 1 }) } } }) } };
    auto withReg = read(scenarioJson(registered, { input("x", { 4, 4 }) }, nodes, { "y" }));
    auto r = runWith(withReg);
    EXPECT_EQ(finalNode(r, "n").target, "npu.my_update.default");

    // Declared but not registered: an ordinary op without an in-place twin of its own name.
    auto declaredOnly = read(scenarioJson({ { "schemas", schemas } }, { input("x", { 4, 4 }) }, nodes, { "y" }));
    auto plain = runWith(declaredOnly);
    EXPECT_EQ(finalNode(plain, "n").target, "npu.my_update_functional.default");
}

TEST(UserOps, RegistrationOfAMissingOpRegistersNothing)
{
    // As register_inplaceable_npu_op does when hasattr(torch.ops.npu, name) is false: nothing, with a
    // warning here.
    ordered_json registered = { { "inplaceable",
        ordered_json::array({ { { "functional", "nope_functional" }, { "inplace", "nope" },
            { "mutated_args", ordered_json::array({ 0 }) } } }) } };
    auto r = read(scenarioJson(registered, { input("x", { 4, 4 }) }, ordered_json::array(), { "x" }));
    ASSERT_TRUE(r.ops);
    EXPECT_TRUE(r.ops->inplaceable().empty());
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_THAT(r.diagnostics[0], HasSubstr("ops.json: $.operators.inplaceable[0]: warning: "));
    EXPECT_THAT(r.diagnostics[0], HasSubstr("npu.nope_functional is neither in the operator table nor in"));
}

TEST(UserOps, BadDeclarationsNameTheirPlace)
{
    auto err = readError(scenarioJson({ { "schemas", { "mylib::ok(Tensor x) -> Tensor", "mylib::broken(Tensor x" } } },
        { input("x", { 4, 4 }) }, ordered_json::array(), { "x" }));
    EXPECT_THAT(err, HasSubstr("$.operators.schemas[1]"));
    // PyTorch's own ops cannot be redeclared.
    err = readError(scenarioJson({ { "schemas", { "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor" } } },
        { input("x", { 4, 4 }) }, ordered_json::array(), { "x" }));
    EXPECT_THAT(err, HasSubstr("aten.mul.Tensor is already in the operator table"));
    err = readError(scenarioJson({ { "inplaceable",
                                     ordered_json::array({ { { "functional", "a" }, { "inplace", "b" },
                                         { "mutated_args", ordered_json::array() } } }) } },
        { input("x", { 4, 4 }) }, ordered_json::array(), { "x" }));
    EXPECT_THAT(err, HasSubstr("$.operators.inplaceable[0].mutated_args"));
    err = readError(scenarioJson(
        { { "schema", ordered_json::array() } }, { input("x", { 4, 4 }) }, ordered_json::array(), { "x" }));
    EXPECT_THAT(err, HasSubstr("$.operators"));
}
