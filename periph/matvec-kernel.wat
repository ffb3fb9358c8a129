;; An int16 matrix-vector product in WebAssembly SIMD, for the golden model
;; (model/golden-kernel.ts) and the seed MXU's fast datapath (periph/seed/mxu.ts): acc[j] = sum_i x[i] * wt[j*stride/2 + i], int32 wrapping, for j < n
;; (stride: bytes from one row of wt to the next, at least 2k).
;; x and the transposed weights wt are int16 (the int4 values widened), k a
;; multiple of 8 (rows padded with zeros); i32x4.dot_i16x8_s multiplies eight
;; pairs and adds them in pairs into four int32 lanes. Integer addition
;; modulo 2^32 is associative, so any order gives the sequential loop's bits.
;; Two columns per pass share each load of x.
(module
  (memory (export "memory") 1)
  (func (export "matvec") (param $x i32) (param $k i32) (param $w i32) (param $n i32) (param $acc i32) (param $stride i32)
    (local $kb i32) (local $i i32) (local $w2 i32) (local $end i32)
    (local $xv v128) (local $s0 v128) (local $s1 v128)
    (local.set $kb (i32.shl (local.get $k) (i32.const 1)))
    (local.set $end (i32.add (local.get $acc) (i32.shl (local.get $n) (i32.const 2))))
    ;; two columns at a time
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.gt_u (i32.add (local.get $acc) (i32.const 8)) (local.get $end)))
        (local.set $w2 (i32.add (local.get $w) (local.get $stride)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dot
          (local.set $xv (v128.load (i32.add (local.get $x) (local.get $i))))
          (local.set $s0 (i32x4.add (local.get $s0)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w) (local.get $i))))))
          (local.set $s1 (i32x4.add (local.get $s1)
            (i32x4.dot_i16x8_s (local.get $xv) (v128.load (i32.add (local.get $w2) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $dot (i32.lt_u (local.get $i) (local.get $kb))))
        (i32.store (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s0)) (i32x4.extract_lane 1 (local.get $s0)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s0)) (i32x4.extract_lane 3 (local.get $s0)))))
        (i32.store offset=4 (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s1)) (i32x4.extract_lane 1 (local.get $s1)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s1)) (i32x4.extract_lane 3 (local.get $s1)))))
        (local.set $acc (i32.add (local.get $acc) (i32.const 8)))
        (local.set $w (i32.add (local.get $w2) (local.get $stride)))
        (br $pairs)))
    ;; an odd last column
    (if (i32.lt_u (local.get $acc) (local.get $end))
      (then
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $dot1
          (local.set $s0 (i32x4.add (local.get $s0)
            (i32x4.dot_i16x8_s (v128.load (i32.add (local.get $x) (local.get $i)))
                               (v128.load (i32.add (local.get $w) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $dot1 (i32.lt_u (local.get $i) (local.get $kb))))
        (i32.store (local.get $acc)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $s0)) (i32x4.extract_lane 1 (local.get $s0)))
                   (i32.add (i32x4.extract_lane 2 (local.get $s0)) (i32x4.extract_lane 3 (local.get $s0)))))))))
