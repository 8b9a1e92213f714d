// The operator table (engine/graph/op_table.h): every generated row parses, the counts agree with
// what the generator read, and the parser reads PyTorch's schema syntax as PyTorch prints it.
#include "engine/graph/op_table.h"

#include <gtest/gtest.h>

using engine::findOpSchema;
using engine::OpSchema;

TEST(OpTable, EveryGeneratedRowParses)
{
    const engine::OpTableInfo& info = engine::opTableInfo();
    EXPECT_EQ(info.source, "PyTorch 2.11.0+cu130");
    EXPECT_EQ(info.pytorchSchemas, 4487);
    EXPECT_GT(info.npuSchemas, 0);
    // A row that did not parse would be missing here.
    EXPECT_EQ(info.size, size_t(info.pytorchSchemas + info.npuSchemas));
}

TEST(OpTable, FindsEverySpellingOfATarget)
{
    const OpSchema* add = findOpSchema("aten.add.Tensor");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(findOpSchema("torch.ops.aten.add.Tensor"), add);
    EXPECT_EQ(findOpSchema("aten::add.Tensor"), add);
    ASSERT_NE(findOpSchema("aten.mm"), nullptr);
    EXPECT_EQ(findOpSchema("aten.mm")->target, "aten.mm.default");
    EXPECT_EQ(findOpSchema("aten::mm"), findOpSchema("aten.mm.default"));
    // Namespaces beyond aten: the functional collectives and the NPU ops.
    ASSERT_NE(findOpSchema("_c10d_functional.wait_tensor"), nullptr);
    ASSERT_NE(findOpSchema("npu.npu_rms_norm.default"), nullptr);
    EXPECT_EQ(findOpSchema("mylib.foo.default"), nullptr);
    EXPECT_EQ(findOpSchema("aten.add.NoSuchOverload"), nullptr);
}

TEST(OpTable, ArgumentsAliasesAndTags)
{
    const OpSchema* add = findOpSchema("aten.add_.Tensor");
    ASSERT_NE(add, nullptr);
    ASSERT_EQ(add->args.size(), 3u);
    EXPECT_EQ(add->args[0].alias, "a!");
    EXPECT_TRUE(add->args[0].writes);
    EXPECT_TRUE(add->mutates);
    EXPECT_FALSE(add->view);
    EXPECT_EQ(add->args[2].name, "alpha");
    EXPECT_TRUE(add->args[2].kwargOnly);
    EXPECT_EQ(add->args[2].defaultValue, "1");
    EXPECT_EQ(add->returns, "Tensor(a!)");

    const OpSchema* split = findOpSchema("aten.split.Tensor");
    ASSERT_NE(split, nullptr);
    EXPECT_TRUE(split->view);
    EXPECT_EQ(split->args[0].alias, "a -> *");
    EXPECT_EQ(split->args[0].type, "Tensor");

    const OpSchema* cat = findOpSchema("aten.cat.out");
    ASSERT_NE(cat, nullptr);
    ASSERT_NE(cat->arg("out"), nullptr);
    EXPECT_TRUE(cat->arg("out")->writes);
    EXPECT_EQ(cat->arg("tensors")->type, "Tensor[]");

    const OpSchema* rand = findOpSchema("aten.randn.default");
    ASSERT_NE(rand, nullptr);
    EXPECT_TRUE(rand->hasTag("nondeterministic_seeded"));
    EXPECT_FALSE(rand->hasTag("pt2_compliant_tag")); // dropped: every op has it
    EXPECT_TRUE(findOpSchema("aten.exp.default")->hasTag("pointwise"));
}

TEST(OpTable, ParserReadsPyTorchsSyntax)
{
    OpSchema s;
    std::string error;
    // A type constructor's parameters are not an alias annotation; the group after them is.
    ASSERT_TRUE(
        engine::parseOpSchema("aten::update.str(Dict(str, t)(a!) self, Dict(str, t)(a!) to_add) -> ()", s, error))
        << error;
    EXPECT_EQ(s.args[0].type, "Dict(str, t)");
    EXPECT_EQ(s.args[0].alias, "a!");
    EXPECT_TRUE(s.mutates);
    // A list of aliased tensors, an optional written one, a string default holding a comma.
    ASSERT_TRUE(engine::parseOpSchema(
        "my::op.x(Tensor(a!)[] self, Tensor(b!)? out=None, str sep=', ', int[2] k=[1, 1]) -> Tensor(a!)[]", s, error))
        << error;
    EXPECT_EQ(s.target, "my.op.x");
    ASSERT_EQ(s.args.size(), 4u);
    EXPECT_EQ(s.args[0].type, "Tensor[]");
    EXPECT_EQ(s.args[1].type, "Tensor?");
    EXPECT_TRUE(s.args[1].writes);
    EXPECT_EQ(s.args[2].defaultValue, "', '");
    EXPECT_EQ(s.args[3].type, "int[2]");
    EXPECT_EQ(s.args[3].defaultValue, "[1, 1]");
    // Varargs.
    ASSERT_TRUE(engine::parseOpSchema("prim::PythonOp(...) -> ...", s, error)) << error;
    EXPECT_TRUE(s.varargs);
    EXPECT_EQ(s.target, "prim.PythonOp.default");
    ASSERT_TRUE(engine::parseOpSchema("aten::format(str self, ...) -> str", s, error)) << error;
    EXPECT_TRUE(s.varargs);
    ASSERT_EQ(s.args.size(), 1u);
    // Not schemas: each says what is wrong.
    EXPECT_FALSE(engine::parseOpSchema("add(Tensor self) -> Tensor", s, error));
    EXPECT_NE(error.find("NAMESPACE::NAME"), std::string::npos) << error;
    EXPECT_FALSE(engine::parseOpSchema("aten::add(Tensor self -> Tensor", s, error));
    EXPECT_NE(error.find("not closed"), std::string::npos) << error;
    EXPECT_FALSE(engine::parseOpSchema("aten::add(Tensor) -> Tensor", s, error));
    EXPECT_NE(error.find("expected TYPE NAME"), std::string::npos) << error;
}
