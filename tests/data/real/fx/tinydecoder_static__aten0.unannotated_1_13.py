# Derived for the tests, not a recording: tinydecoder_static__aten0.readable.py with every type
# annotation removed, as PyTorch 1.13's print_readable() printed the code (no annotations).
class <lambda>(torch.nn.Module):
    def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1, arg15_1, arg16_1, arg17_1, arg18_1, arg19_1, arg20_1, arg21_1, arg22_1, arg23_1, arg24_1, arg25_1, arg26_1):
        # File: /home/user/app/device/common.py:69 in forward, code: x = self.embed(tokens)
        embedding = torch.ops.aten.embedding.default(arg0_1, arg1_1);  arg0_1 = arg1_1 = None

        # File: /home/user/app/device/common.py:14 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_1 = torch.ops.aten.pow.Tensor_Scalar(embedding, 2)
        mean = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt = torch.ops.aten.rsqrt.default(add);  add = None
        mul = torch.ops.aten.mul.Tensor(embedding, rsqrt);  rsqrt = None
        mul_1 = torch.ops.aten.mul.Tensor(mul, arg2_1);  mul = arg2_1 = None

        # File: /home/user/app/device/common.py:28 in forward, code: q = self.wq(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t = torch.ops.aten.t.default(arg3_1);  arg3_1 = None
        view = torch.ops.aten.view.default(mul_1, [16, 256])
        mm = torch.ops.aten.mm.default(view, t);  view = t = None
        _unsafe_view = torch.ops.aten._unsafe_view.default(mm, [1, 16, 256]);  mm = None
        view_1 = torch.ops.aten.view.default(_unsafe_view, [1, 16, 4, 64]);  _unsafe_view = None
        transpose = torch.ops.aten.transpose.int(view_1, 1, 2);  view_1 = None

        # File: /home/user/app/device/common.py:29 in forward, code: k = self.wk(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t_1 = torch.ops.aten.t.default(arg4_1);  arg4_1 = None
        view_2 = torch.ops.aten.view.default(mul_1, [16, 256])
        mm_1 = torch.ops.aten.mm.default(view_2, t_1);  view_2 = t_1 = None
        _unsafe_view_1 = torch.ops.aten._unsafe_view.default(mm_1, [1, 16, 256]);  mm_1 = None
        view_3 = torch.ops.aten.view.default(_unsafe_view_1, [1, 16, 4, 64]);  _unsafe_view_1 = None
        transpose_1 = torch.ops.aten.transpose.int(view_3, 1, 2);  view_3 = None

        # File: /home/user/app/device/common.py:30 in forward, code: v = self.wv(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t_2 = torch.ops.aten.t.default(arg5_1);  arg5_1 = None
        view_4 = torch.ops.aten.view.default(mul_1, [16, 256]);  mul_1 = None
        mm_2 = torch.ops.aten.mm.default(view_4, t_2);  view_4 = t_2 = None
        _unsafe_view_2 = torch.ops.aten._unsafe_view.default(mm_2, [1, 16, 256]);  mm_2 = None
        view_5 = torch.ops.aten.view.default(_unsafe_view_2, [1, 16, 4, 64]);  _unsafe_view_2 = None
        transpose_2 = torch.ops.aten.transpose.int(view_5, 1, 2);  view_5 = None

        # File: /home/user/app/device/common.py:31 in forward, code: k_cache.index_copy_(2, pos, k)
        index_copy = torch.ops.aten.index_copy.default(arg6_1, 2, arg7_1, transpose_1);  transpose_1 = None

        # File: /home/user/app/device/common.py:32 in forward, code: v_cache.index_copy_(2, pos, v)
        index_copy_1 = torch.ops.aten.index_copy.default(arg8_1, 2, arg7_1, transpose_2);  transpose_2 = None

        # File: /home/user/app/device/common.py:34 in forward, code: att = (q @ k_cache.transpose(-1, -2)) / math.sqrt(self.hd)
        expand = torch.ops.aten.expand.default(transpose, [1, 4, 16, 64]);  transpose = None
        view_6 = torch.ops.aten.view.default(expand, [4, 16, 64]);  expand = None
        transpose_6 = torch.ops.aten.transpose.int(index_copy, -1, -2)
        expand_3 = torch.ops.aten.expand.default(transpose_6, [1, 4, 64, 64]);  transpose_6 = None
        view_8 = torch.ops.aten.view.default(expand_3, [4, 64, 64]);  expand_3 = None
        bmm = torch.ops.aten.bmm.default(view_6, view_8);  view_6 = view_8 = None
        view_9 = torch.ops.aten.view.default(bmm, [1, 4, 16, 64]);  bmm = None
        div = torch.ops.aten.div.Tensor(view_9, 8.0);  view_9 = None

        # File: /home/user/app/device/common.py:35 in forward, code: mask = torch.arange(L, device=x.device)[None, :] > pos[:, None]
        arange = torch.ops.aten.arange.default(64, device = device(type='cuda', index=0), pin_memory = False)
        unsqueeze = torch.ops.aten.unsqueeze.default(arange, 0);  arange = None
        unsqueeze_1 = torch.ops.aten.unsqueeze.default(arg7_1, 1)
        gt = torch.ops.aten.gt.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None

        # File: /home/user/app/device/common.py:36 in forward, code: att = att.masked_fill(mask, float("-inf")).softmax(-1)
        masked_fill = torch.ops.aten.masked_fill.Scalar(div, gt, -inf);  div = gt = None
        _softmax = torch.ops.aten._softmax.default(masked_fill, -1, False);  masked_fill = None

        # File: /home/user/app/device/common.py:37 in forward, code: y = (att @ v_cache).transpose(1, 2).reshape(B, T, D)
        expand_4 = torch.ops.aten.expand.default(_softmax, [1, 4, 16, 64]);  _softmax = None
        view_10 = torch.ops.aten.view.default(expand_4, [4, 16, 64]);  expand_4 = None
        expand_7 = torch.ops.aten.expand.default(index_copy_1, [1, 4, 64, 64])
        view_12 = torch.ops.aten.view.default(expand_7, [4, 64, 64]);  expand_7 = None
        bmm_1 = torch.ops.aten.bmm.default(view_10, view_12);  view_10 = view_12 = None
        view_13 = torch.ops.aten.view.default(bmm_1, [1, 4, 16, 64]);  bmm_1 = None
        transpose_7 = torch.ops.aten.transpose.int(view_13, 1, 2);  view_13 = None
        clone = torch.ops.aten.clone.default(transpose_7, memory_format = torch.contiguous_format);  transpose_7 = None
        _unsafe_view_3 = torch.ops.aten._unsafe_view.default(clone, [1, 16, 256]);  clone = None

        # File: /home/user/app/device/common.py:38 in forward, code: return self.wo(y)
        t_3 = torch.ops.aten.t.default(arg9_1);  arg9_1 = None
        view_14 = torch.ops.aten.view.default(_unsafe_view_3, [16, 256]);  _unsafe_view_3 = None
        mm_3 = torch.ops.aten.mm.default(view_14, t_3);  view_14 = t_3 = None
        _unsafe_view_4 = torch.ops.aten._unsafe_view.default(mm_3, [1, 16, 256]);  mm_3 = None

        # File: /home/user/app/device/common.py:52 in forward, code: x = x + self.attn(self.attn_norm(x), pos, k_cache, v_cache)
        add_1 = torch.ops.aten.add.Tensor(embedding, _unsafe_view_4);  embedding = _unsafe_view_4 = None

        # File: /home/user/app/device/common.py:14 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_2 = torch.ops.aten.pow.Tensor_Scalar(add_1, 2)
        mean_1 = torch.ops.aten.mean.dim(pow_2, [-1], True);  pow_2 = None
        add_2 = torch.ops.aten.add.Tensor(mean_1, 1e-06);  mean_1 = None
        rsqrt_1 = torch.ops.aten.rsqrt.default(add_2);  add_2 = None
        mul_2 = torch.ops.aten.mul.Tensor(add_1, rsqrt_1);  rsqrt_1 = None
        mul_3 = torch.ops.aten.mul.Tensor(mul_2, arg10_1);  mul_2 = arg10_1 = None

        # File: /home/user/app/device/common.py:54 in forward, code: return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
        t_4 = torch.ops.aten.t.default(arg11_1);  arg11_1 = None
        view_15 = torch.ops.aten.view.default(mul_3, [16, 256])
        mm_4 = torch.ops.aten.mm.default(view_15, t_4);  view_15 = t_4 = None
        _unsafe_view_5 = torch.ops.aten._unsafe_view.default(mm_4, [1, 16, 512]);  mm_4 = None
        silu = torch.ops.aten.silu.default(_unsafe_view_5);  _unsafe_view_5 = None
        t_5 = torch.ops.aten.t.default(arg12_1);  arg12_1 = None
        view_16 = torch.ops.aten.view.default(mul_3, [16, 256]);  mul_3 = None
        mm_5 = torch.ops.aten.mm.default(view_16, t_5);  view_16 = t_5 = None
        _unsafe_view_6 = torch.ops.aten._unsafe_view.default(mm_5, [1, 16, 512]);  mm_5 = None
        mul_4 = torch.ops.aten.mul.Tensor(silu, _unsafe_view_6);  silu = _unsafe_view_6 = None
        t_6 = torch.ops.aten.t.default(arg13_1);  arg13_1 = None
        view_17 = torch.ops.aten.view.default(mul_4, [16, 512]);  mul_4 = None
        mm_6 = torch.ops.aten.mm.default(view_17, t_6);  view_17 = t_6 = None
        _unsafe_view_7 = torch.ops.aten._unsafe_view.default(mm_6, [1, 16, 256]);  mm_6 = None
        add_3 = torch.ops.aten.add.Tensor(add_1, _unsafe_view_7);  add_1 = _unsafe_view_7 = None

        # File: /home/user/app/device/common.py:14 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_3 = torch.ops.aten.pow.Tensor_Scalar(add_3, 2)
        mean_2 = torch.ops.aten.mean.dim(pow_3, [-1], True);  pow_3 = None
        add_4 = torch.ops.aten.add.Tensor(mean_2, 1e-06);  mean_2 = None
        rsqrt_2 = torch.ops.aten.rsqrt.default(add_4);  add_4 = None
        mul_5 = torch.ops.aten.mul.Tensor(add_3, rsqrt_2);  rsqrt_2 = None
        mul_6 = torch.ops.aten.mul.Tensor(mul_5, arg14_1);  mul_5 = arg14_1 = None

        # File: /home/user/app/device/common.py:28 in forward, code: q = self.wq(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t_7 = torch.ops.aten.t.default(arg15_1);  arg15_1 = None
        view_18 = torch.ops.aten.view.default(mul_6, [16, 256])
        mm_7 = torch.ops.aten.mm.default(view_18, t_7);  view_18 = t_7 = None
        _unsafe_view_8 = torch.ops.aten._unsafe_view.default(mm_7, [1, 16, 256]);  mm_7 = None
        view_19 = torch.ops.aten.view.default(_unsafe_view_8, [1, 16, 4, 64]);  _unsafe_view_8 = None
        transpose_8 = torch.ops.aten.transpose.int(view_19, 1, 2);  view_19 = None

        # File: /home/user/app/device/common.py:29 in forward, code: k = self.wk(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t_8 = torch.ops.aten.t.default(arg16_1);  arg16_1 = None
        view_20 = torch.ops.aten.view.default(mul_6, [16, 256])
        mm_8 = torch.ops.aten.mm.default(view_20, t_8);  view_20 = t_8 = None
        _unsafe_view_9 = torch.ops.aten._unsafe_view.default(mm_8, [1, 16, 256]);  mm_8 = None
        view_21 = torch.ops.aten.view.default(_unsafe_view_9, [1, 16, 4, 64]);  _unsafe_view_9 = None
        transpose_9 = torch.ops.aten.transpose.int(view_21, 1, 2);  view_21 = None

        # File: /home/user/app/device/common.py:30 in forward, code: v = self.wv(x).view(B, T, self.h, self.hd).transpose(1, 2)
        t_9 = torch.ops.aten.t.default(arg17_1);  arg17_1 = None
        view_22 = torch.ops.aten.view.default(mul_6, [16, 256]);  mul_6 = None
        mm_9 = torch.ops.aten.mm.default(view_22, t_9);  view_22 = t_9 = None
        _unsafe_view_10 = torch.ops.aten._unsafe_view.default(mm_9, [1, 16, 256]);  mm_9 = None
        view_23 = torch.ops.aten.view.default(_unsafe_view_10, [1, 16, 4, 64]);  _unsafe_view_10 = None
        transpose_10 = torch.ops.aten.transpose.int(view_23, 1, 2);  view_23 = None

        # File: /home/user/app/device/common.py:31 in forward, code: k_cache.index_copy_(2, pos, k)
        index_copy_2 = torch.ops.aten.index_copy.default(arg18_1, 2, arg7_1, transpose_9);  transpose_9 = None

        # File: /home/user/app/device/common.py:32 in forward, code: v_cache.index_copy_(2, pos, v)
        index_copy_3 = torch.ops.aten.index_copy.default(arg19_1, 2, arg7_1, transpose_10);  transpose_10 = None

        # File: /home/user/app/device/common.py:34 in forward, code: att = (q @ k_cache.transpose(-1, -2)) / math.sqrt(self.hd)
        expand_8 = torch.ops.aten.expand.default(transpose_8, [1, 4, 16, 64]);  transpose_8 = None
        view_24 = torch.ops.aten.view.default(expand_8, [4, 16, 64]);  expand_8 = None
        transpose_14 = torch.ops.aten.transpose.int(index_copy_2, -1, -2)
        expand_11 = torch.ops.aten.expand.default(transpose_14, [1, 4, 64, 64]);  transpose_14 = None
        view_26 = torch.ops.aten.view.default(expand_11, [4, 64, 64]);  expand_11 = None
        bmm_2 = torch.ops.aten.bmm.default(view_24, view_26);  view_24 = view_26 = None
        view_27 = torch.ops.aten.view.default(bmm_2, [1, 4, 16, 64]);  bmm_2 = None
        div_1 = torch.ops.aten.div.Tensor(view_27, 8.0);  view_27 = None

        # File: /home/user/app/device/common.py:35 in forward, code: mask = torch.arange(L, device=x.device)[None, :] > pos[:, None]
        arange_1 = torch.ops.aten.arange.default(64, device = device(type='cuda', index=0), pin_memory = False)
        unsqueeze_2 = torch.ops.aten.unsqueeze.default(arange_1, 0);  arange_1 = None
        unsqueeze_3 = torch.ops.aten.unsqueeze.default(arg7_1, 1);  arg7_1 = None
        gt_1 = torch.ops.aten.gt.Tensor(unsqueeze_2, unsqueeze_3);  unsqueeze_2 = unsqueeze_3 = None

        # File: /home/user/app/device/common.py:36 in forward, code: att = att.masked_fill(mask, float("-inf")).softmax(-1)
        masked_fill_1 = torch.ops.aten.masked_fill.Scalar(div_1, gt_1, -inf);  div_1 = gt_1 = None
        _softmax_1 = torch.ops.aten._softmax.default(masked_fill_1, -1, False);  masked_fill_1 = None

        # File: /home/user/app/device/common.py:37 in forward, code: y = (att @ v_cache).transpose(1, 2).reshape(B, T, D)
        expand_12 = torch.ops.aten.expand.default(_softmax_1, [1, 4, 16, 64]);  _softmax_1 = None
        view_28 = torch.ops.aten.view.default(expand_12, [4, 16, 64]);  expand_12 = None
        expand_15 = torch.ops.aten.expand.default(index_copy_3, [1, 4, 64, 64])
        view_30 = torch.ops.aten.view.default(expand_15, [4, 64, 64]);  expand_15 = None
        bmm_3 = torch.ops.aten.bmm.default(view_28, view_30);  view_28 = view_30 = None
        view_31 = torch.ops.aten.view.default(bmm_3, [1, 4, 16, 64]);  bmm_3 = None
        transpose_15 = torch.ops.aten.transpose.int(view_31, 1, 2);  view_31 = None
        clone_1 = torch.ops.aten.clone.default(transpose_15, memory_format = torch.contiguous_format);  transpose_15 = None
        _unsafe_view_11 = torch.ops.aten._unsafe_view.default(clone_1, [1, 16, 256]);  clone_1 = None

        # File: /home/user/app/device/common.py:38 in forward, code: return self.wo(y)
        t_10 = torch.ops.aten.t.default(arg20_1);  arg20_1 = None
        view_32 = torch.ops.aten.view.default(_unsafe_view_11, [16, 256]);  _unsafe_view_11 = None
        mm_10 = torch.ops.aten.mm.default(view_32, t_10);  view_32 = t_10 = None
        _unsafe_view_12 = torch.ops.aten._unsafe_view.default(mm_10, [1, 16, 256]);  mm_10 = None

        # File: /home/user/app/device/common.py:52 in forward, code: x = x + self.attn(self.attn_norm(x), pos, k_cache, v_cache)
        add_5 = torch.ops.aten.add.Tensor(add_3, _unsafe_view_12);  add_3 = _unsafe_view_12 = None

        # File: /home/user/app/device/common.py:14 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_4 = torch.ops.aten.pow.Tensor_Scalar(add_5, 2)
        mean_3 = torch.ops.aten.mean.dim(pow_4, [-1], True);  pow_4 = None
        add_6 = torch.ops.aten.add.Tensor(mean_3, 1e-06);  mean_3 = None
        rsqrt_3 = torch.ops.aten.rsqrt.default(add_6);  add_6 = None
        mul_7 = torch.ops.aten.mul.Tensor(add_5, rsqrt_3);  rsqrt_3 = None
        mul_8 = torch.ops.aten.mul.Tensor(mul_7, arg21_1);  mul_7 = arg21_1 = None

        # File: /home/user/app/device/common.py:54 in forward, code: return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
        t_11 = torch.ops.aten.t.default(arg22_1);  arg22_1 = None
        view_33 = torch.ops.aten.view.default(mul_8, [16, 256])
        mm_11 = torch.ops.aten.mm.default(view_33, t_11);  view_33 = t_11 = None
        _unsafe_view_13 = torch.ops.aten._unsafe_view.default(mm_11, [1, 16, 512]);  mm_11 = None
        silu_1 = torch.ops.aten.silu.default(_unsafe_view_13);  _unsafe_view_13 = None
        t_12 = torch.ops.aten.t.default(arg23_1);  arg23_1 = None
        view_34 = torch.ops.aten.view.default(mul_8, [16, 256]);  mul_8 = None
        mm_12 = torch.ops.aten.mm.default(view_34, t_12);  view_34 = t_12 = None
        _unsafe_view_14 = torch.ops.aten._unsafe_view.default(mm_12, [1, 16, 512]);  mm_12 = None
        mul_9 = torch.ops.aten.mul.Tensor(silu_1, _unsafe_view_14);  silu_1 = _unsafe_view_14 = None
        t_13 = torch.ops.aten.t.default(arg24_1);  arg24_1 = None
        view_35 = torch.ops.aten.view.default(mul_9, [16, 512]);  mul_9 = None
        mm_13 = torch.ops.aten.mm.default(view_35, t_13);  view_35 = t_13 = None
        _unsafe_view_15 = torch.ops.aten._unsafe_view.default(mm_13, [1, 16, 256]);  mm_13 = None
        add_7 = torch.ops.aten.add.Tensor(add_5, _unsafe_view_15);  add_5 = _unsafe_view_15 = None

        # File: /home/user/app/device/common.py:14 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_5 = torch.ops.aten.pow.Tensor_Scalar(add_7, 2)
        mean_4 = torch.ops.aten.mean.dim(pow_5, [-1], True);  pow_5 = None
        add_8 = torch.ops.aten.add.Tensor(mean_4, 1e-06);  mean_4 = None
        rsqrt_4 = torch.ops.aten.rsqrt.default(add_8);  add_8 = None
        mul_10 = torch.ops.aten.mul.Tensor(add_7, rsqrt_4);  add_7 = rsqrt_4 = None
        mul_11 = torch.ops.aten.mul.Tensor(mul_10, arg25_1);  mul_10 = arg25_1 = None

        # File: /home/user/app/device/common.py:72 in forward, code: return self.lm_head(self.norm(x))
        t_14 = torch.ops.aten.t.default(arg26_1);  arg26_1 = None
        view_36 = torch.ops.aten.view.default(mul_11, [16, 256]);  mul_11 = None
        mm_14 = torch.ops.aten.mm.default(view_36, t_14);  view_36 = t_14 = None
        _unsafe_view_16 = torch.ops.aten._unsafe_view.default(mm_14, [1, 16, 1024]);  mm_14 = None

        # File: /home/user/app/device/common.py:31 in forward, code: k_cache.index_copy_(2, pos, k)
        copy_ = torch.ops.aten.copy_.default(arg6_1, index_copy);  arg6_1 = index_copy = copy_ = None

        # File: /home/user/app/device/common.py:32 in forward, code: v_cache.index_copy_(2, pos, v)
        copy__1 = torch.ops.aten.copy_.default(arg8_1, index_copy_1);  arg8_1 = index_copy_1 = copy__1 = None

        # File: /home/user/app/device/common.py:31 in forward, code: k_cache.index_copy_(2, pos, k)
        copy__2 = torch.ops.aten.copy_.default(arg18_1, index_copy_2);  arg18_1 = index_copy_2 = copy__2 = None

        # File: /home/user/app/device/common.py:32 in forward, code: v_cache.index_copy_(2, pos, v)
        copy__3 = torch.ops.aten.copy_.default(arg19_1, index_copy_3);  arg19_1 = index_copy_3 = copy__3 = None
        return (_unsafe_view_16,)
