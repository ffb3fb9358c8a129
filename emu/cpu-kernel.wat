;; The CPU's plain instructions in WebAssembly: the fast paths of the CPU's
;; two loops of their own (emu/cpu.ts), runWords (word slots on the native
;; interface, the picotpu board's configuration) and runSeed (halfword slots
;; with RV32C on AXI-Lite, the transformer-tpu-int4 board's). emu/cpu-kernel.ts
;; drives them.
;;
;; Why: a cold `picotpu demo` spends its first tenth of a second with the
;; JavaScript loop unoptimized while V8 compiles it; WebAssembly is compiled
;; ahead of the first instruction (its baseline compiler takes about a
;; millisecond) and runs near its final speed from there; warm, a case here
;; costs less than the JavaScript loop's.
;;
;; One call of an export executes the instructions that touch only the
;; registers and the BRAM, from the predecoded slots, and returns at the first
;; one it leaves to the JavaScript loop, before changing anything for it: an
;; undecoded slot, a misaligned access or (runWords) jump target, a store into
;; predecoded code or (runWords) into the word already prefetched, the loop's
;; stale word, a counter read, ECALL/EBREAK/illegal/the breakpoint, and the
;; limits; runWords also leaves every device read to the loop. A device store
;; it makes through an import (the bus), and leaves only the store's end to
;; the loop when the bus reports more than a wait (a bus error, a halt).
;; runSeed, whose firmware touches a device every seventh instruction, makes
;; its device reads through an import too, and answers the accesses of a
;; device window itself (cpu-kernel.ts DeviceWindow: the seed TPU's status
;; words, staging register and command queues), and does Cpu.pollRepeats'
;; work itself for a read with a promise (recordRead: the poll history, the
;; poll loop's iterations skipped). Each case does what its case in the loop does;
;; test/cpu-kernel.test.ts runs both on the same programs and firmware and
;; compares every register, clock and byte.
;;
;; The memory (emu/cpu-kernel.ts layout() lays it out and imports the
;; addresses): the BRAM at 0 (the bus's bram), then the slots' fields at R
;; and immediates (int32 a slot: cpu.ts `fields`, `imms`; at 2R for word
;; slots, at 3R for halfword slots), the registers x0-x31 (3R or 5R),
;; the state a run returns besides pc (f64 each, CpuKernel.state: clock,
;; instret, the instret of the last effect or -1, what the loop must finish
;; of the instruction at pc, a skipped poll iteration's clocks and
;; instructions, and the loop's lastEffect, which it sets before a run), a
;; device read's answer (io), the device window, the poll history, and the
;; seed configuration's per-slot bytes (cpu.ts `dataAt`, `lens`).
;; A slot's fields (cpu.ts slotFields): bits 5:0 op, 10:6 rd, 15:11 rs1,
;; 20:16 rs2, 28:21 clocks, 29 compressed. The ops are cpu.ts's enum Op, in its
;; order: each br_table below lists a case for each.
(module
  (import "cpu" "memory" (memory 1))
  ;; R: the BRAM's bytes, a power of two.
  (import "cpu" "ram" (global $ram i32))
  ;; The slots' fields, their immediates, the registers and the state are at multiples of R
  ;; (layout(); each export computes them); the seed configuration's per-slot bytes are here:
  (import "cpu" "dataAtAt" (global $dataAtAt i32))
  (import "cpu" "lensAt" (global $lensAt i32))
  ;; timing.ts TAKEN_BRANCH_EXTRA, and the AXI-Lite interface's (the seed configuration):
  ;; AXI_TRANSACTION_EXTRA, a jump target's straddle (STRADDLE_EXTRA + AXI_TRANSACTION_EXTRA +
  ;; AXI_CHAINED_EXTRA), AXI_REFETCH_PER_WORD.
  (import "cpu" "takenBranchExtra" (global $takenBranchExtra i32))
  (import "cpu" "axiExtra" (global $axiExtra i32))
  (import "cpu" "straddleTarget" (global $straddleTarget i32))
  (import "cpu" "refetchPerWord" (global $refetchPerWord i32))
  ;; Clocks from a store's launch to its data handshake (timing.ts storeAccessOffset).
  (import "cpu" "storeAt" (global $storeAt i32))
  ;; store(addr, wdata, wstrb, clock) -> wait: a store to a device through the
  ;; board's bus (Bus.write); -1 when the loop must finish the instruction (a
  ;; bus error, a restart, or the machine must look up: Bus.attention).
  (import "cpu" "store" (func $store (param i32 i32 i32 f64) (result i32)))
  ;; load(addr, clock) -> clocks: a read of a device through the board's bus (Bus.read, runSeed's
  ;; configuration), its wait and read extra; in io the word (int32 0), 1 when the machine must
  ;; look up (int32 1), Bus.wait (int32 2) and Bus.repeatUntil (f64 at byte 16); -1 for a bus
  ;; error or a restart (the loop's).
  (import "cpu" "load" (func $load (param i32 f64) (result i32)))
  (import "cpu" "ioAt" (global $ioAt i32))
  ;; The device window (cpu-kernel.ts DeviceWindow): at +0 whether it answers, +4 its base, +8
  ;; the promises (8 f64), +72 the values (16 int32), +136 readSlot, +168 promiseSlot, +200
  ;; storeSlot (a byte per word of its 32), then the queues ($push).
  (import "cpu" "windowAt" (global $windowAt i32))
  ;; The poll history (cpu-kernel.ts PollHistory): at +0 next, +4 count, then f64 arrays of 4 at
  ;; +8 addrs, +40 values, +72 waits, +104 promises, +136 launches, +168 retireds, then +200 the
  ;; pcs (4 int32) and +216 the registers after each read (4 x 32 int32).
  (import "cpu" "pollAt" (global $pollAt i32))
  ;; cpu.ts SEED_POLL_WINDOW: a read is a poll-loop candidate when its promise reaches further
  ;; past it than this.
  (import "cpu" "pollWindow" (global $pollWindow f64))

  ;; runWords(pc, cycle, instret, cycleLimit, stopAt, stale, barrel) -> pc: from
  ;; pc at clock `cycle`, until the clock reaches cycleLimit, instret reaches
  ;; stopAt or an instruction is left to the caller. stale: the slot of the
  ;; loop's stale word (-1: none). barrel: BARREL_SHIFTER (0: shifts by a
  ;; register take (n>>2)+(n&3) clocks more).
  (func (export "runWords") (param $pc i32) (param $cycle f64) (param $instret f64)
    (param $cycleLimit f64) (param $stopAt f64) (param $stale i32) (param $barrel i32) (result i32)
    (local $fields i32) (local $imms i32) (local $regs i32) (local $badPc i32)
    (local $k i32) (local $f i32) (local $imm i32) (local $rdp i32) (local $a i32) (local $b i32)
    (local $clocks i32) (local $next i32) (local $addr i32) (local $w i32) (local $n i32)
    (local $lastStore f64)
    ;; Word slots: fields at R, immediates at 2R, registers at 3R (layout(), which says why).
    (local.set $fields (global.get $ram))
    (local.set $imms (i32.shl (global.get $ram) (i32.const 1)))
    (local.set $regs (i32.mul (global.get $ram) (i32.const 3)))
    ;; A fetch is legal only from an aligned address inside the BRAM.
    (local.set $badPc (i32.or (i32.xor (i32.sub (global.get $ram) (i32.const 1)) (i32.const -1)) (i32.const 3)))
    (local.set $lastStore (f64.const -1))
    (block $leave
      (loop $step
        (br_if $leave (f64.ge (local.get $cycle) (local.get $cycleLimit)))
        (br_if $leave (f64.ge (local.get $instret) (local.get $stopAt)))
        (br_if $leave (i32.and (local.get $pc) (local.get $badPc)))
        (local.set $k (i32.shr_u (local.get $pc) (i32.const 2)))
        (br_if $leave (i32.eq (local.get $k) (local.get $stale)))
        (local.set $f (i32.load (i32.add (local.get $fields) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $imm (i32.load (i32.add (local.get $imms) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $rdp (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 4)) (i32.const 124))))
        (local.set $a (i32.load (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 9)) (i32.const 124)))))
        (local.set $b (i32.load (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 14)) (i32.const 124)))))
        (local.set $clocks (i32.shr_u (local.get $f) (i32.const 21)))
        (local.set $next (i32.add (local.get $pc) (i32.const 4)))
        (block $retire
        (block $remu (block $rem (block $divu (block $div
        (block $mulhu (block $mulhsu (block $mulh (block $mul
        (block $and (block $or (block $sra (block $srl (block $xor (block $sltu (block $slt (block $sll (block $sub (block $add
        (block $srai (block $srli (block $slli (block $andi (block $ori (block $xori (block $sltiu (block $slti (block $addi
        (block $store (block $sw (block $sh (block $sb
        (block $lhu (block $lbu (block $lw (block $lh (block $lb
        (block $branch (block $bgeu (block $bltu (block $bge (block $blt (block $bne (block $beq
        (block $jalr (block $jal (block $auipc (block $lui
          (br_table
            $leave $leave $retire                       ;; UNDECODED ILLEGAL NOP
            $lui $auipc $jal $jalr                      ;; LUI AUIPC JAL JALR
            $beq $bne $blt $bge $bltu $bgeu             ;; BEQ BNE BLT BGE BLTU BGEU
            $lb $lh $lw $lbu $lhu                       ;; LB LH LW LBU LHU
            $sb $sh $sw                                 ;; SB SH SW
            $addi $slti $sltiu $xori $ori $andi $slli $srli $srai
            $add $sub $sll $slt $sltu $xor $srl $sra $or $and
            $retire $leave $leave                       ;; FENCE ECALL EBREAK
            $leave $leave $leave $leave $leave $leave   ;; RDCYCLE(H) RDTIME(H) RDINSTRET(H)
            $mul $mulh $mulhsu $mulhu $div $divu $rem $remu
            $leave                                      ;; BREAK, and anything after
            (i32.and (local.get $f) (i32.const 63))))
          ;; LUI
          (i32.store (local.get $rdp) (local.get $imm)) (br $retire))
          ;; AUIPC
          (i32.store (local.get $rdp) (i32.add (local.get $pc) (local.get $imm))) (br $retire))
          ;; JAL: a target at a halfword address traps (the loop's case does it).
          (local.set $w (i32.add (local.get $pc) (local.get $imm)))
          (br_if $leave (i32.and (local.get $w) (i32.const 2)))
          (i32.store (local.get $rdp) (local.get $next))
          (local.set $next (local.get $w))
          (br $retire))
          ;; JALR clears bit 0 of the target.
          (local.set $w (i32.and (i32.add (local.get $a) (local.get $imm)) (i32.const -2)))
          (br_if $leave (i32.and (local.get $w) (i32.const 2)))
          (i32.store (local.get $rdp) (local.get $next))
          (local.set $next (local.get $w))
          (br $retire))
        ;; The branches: $n is whether taken.
          (local.set $n (i32.eq (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ne (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.lt_s (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ge_s (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.lt_u (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ge_u (local.get $a) (local.get $b))))
          ;; Every branch, $n set.
          (br_if $retire (i32.eqz (local.get $n)))
          (local.set $w (i32.add (local.get $pc) (local.get $imm)))
          (br_if $leave (i32.and (local.get $w) (i32.const 2)))
          (local.set $next (local.get $w))
          (local.set $clocks (i32.add (local.get $clocks) (global.get $takenBranchExtra)))
          (br $retire))
        ;; The loads: inside the BRAM and aligned, else the loop's.
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.ge_u (local.get $addr) (global.get $ram)))
          (i32.store (local.get $rdp) (i32.load8_s (local.get $addr))) (br $retire))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.ge_u (local.get $addr) (global.get $ram)))
          (br_if $leave (i32.and (local.get $addr) (i32.const 1)))
          (i32.store (local.get $rdp) (i32.load16_s (local.get $addr))) (br $retire))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.ge_u (local.get $addr) (global.get $ram)))
          (br_if $leave (i32.and (local.get $addr) (i32.const 3)))
          (i32.store (local.get $rdp) (i32.load (local.get $addr))) (br $retire))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.ge_u (local.get $addr) (global.get $ram)))
          (i32.store (local.get $rdp) (i32.load8_u (local.get $addr))) (br $retire))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.ge_u (local.get $addr) (global.get $ram)))
          (br_if $leave (i32.and (local.get $addr) (i32.const 1)))
          (i32.store (local.get $rdp) (i32.load16_u (local.get $addr))) (br $retire))
        ;; The stores: $n is the access's size less one. Into the BRAM, aligned, not
        ;; into the word after this one (prefetched) nor into a decoded word.
          (local.set $n (i32.const 0)) (br $store))
          (local.set $n (i32.const 1)) (br $store))
          (local.set $n (i32.const 3)))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.and (local.get $addr) (local.get $n)))
          (if (i32.ge_u (local.get $addr) (global.get $ram)) (then
            ;; A device: PicoRV32 replicates a byte or half across the word and selects lanes with wstrb.
            (local.set $lastStore (local.get $instret))
            (local.set $w (call $store (local.get $addr)
              (if (result i32) (i32.eq (local.get $n) (i32.const 3)) (then (local.get $b))
                (else (if (result i32) (local.get $n)
                  (then (i32.mul (i32.and (local.get $b) (i32.const 0xffff)) (i32.const 0x10001)))
                  (else (i32.mul (i32.and (local.get $b) (i32.const 0xff)) (i32.const 0x1010101))))))
              (if (result i32) (i32.eq (local.get $n) (i32.const 3)) (then (i32.const 15))
                (else (i32.shl (i32.or (i32.shl (local.get $n) (i32.const 1)) (i32.const 1)) (i32.and (local.get $addr) (i32.const 3)))))
              (f64.add (local.get $cycle) (f64.convert_i32_u (global.get $storeAt)))))
            (if (i32.lt_s (local.get $w) (i32.const 0)) (then
              ;; Done, but not retired: the loop finishes it (runWords' deviceStoreTail).
              (f64.store (i32.add (local.get $regs) (i32.const 152)) (f64.const 1))
              (br $leave)))
            (local.set $clocks (i32.add (local.get $clocks) (local.get $w)))
            (br $retire)))
          (local.set $w (i32.shr_u (local.get $addr) (i32.const 2)))
          (br_if $leave (i32.eq (local.get $w) (i32.add (local.get $k) (i32.const 1))))
          (br_if $leave (i32.load (i32.add (local.get $fields) (i32.shl (local.get $w) (i32.const 2)))))
          (if (i32.eq (local.get $n) (i32.const 3))
            (then (i32.store (local.get $addr) (local.get $b)))
            (else (if (local.get $n)
              (then (i32.store16 (local.get $addr) (local.get $b)))
              (else (i32.store8 (local.get $addr) (local.get $b))))))
          (local.set $lastStore (local.get $instret))
          (br $retire))
        ;; Register-immediate.
          (i32.store (local.get $rdp) (i32.add (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_s (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_u (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.xor (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.or (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.and (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shl (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shr_u (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shr_s (local.get $a) (local.get $imm))) (br $retire))
        ;; Register-register. A shift by a register without BARREL_SHIFTER costs
        ;; (n>>2)+(n&3) clocks more (timing.ts shiftSteps).
          (i32.store (local.get $rdp) (i32.add (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.sub (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shl (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_s (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_u (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.xor (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shr_u (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shr_s (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.or (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.and (local.get $a) (local.get $b))) (br $retire))
        ;; M: the products' high words from 64-bit products.
          (i32.store (local.get $rdp) (i32.mul (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_s
            (i64.mul (i64.extend_i32_s (local.get $a)) (i64.extend_i32_s (local.get $b))) (i64.const 32)))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_s
            (i64.mul (i64.extend_i32_s (local.get $a)) (i64.extend_i32_u (local.get $b))) (i64.const 32)))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_u
            (i64.mul (i64.extend_i32_u (local.get $a)) (i64.extend_i32_u (local.get $b))) (i64.const 32)))) (br $retire))
        ;; Division as RISC-V defines it: by zero gives -1 (DIV, DIVU) or the dividend
        ;; (REM, REMU); the overflow -2^31 / -1 gives -2^31 and remainder 0 (WebAssembly
        ;; traps on both, so they are cases here).
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (i32.const -1))
              (else (if (result i32) (i32.eq (local.get $b) (i32.const -1))
                (then (i32.sub (i32.const 0) (local.get $a)))
                (else (i32.div_s (local.get $a) (local.get $b)))))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (i32.const -1))
              (else (i32.div_u (local.get $a) (local.get $b)))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (local.get $a))
              (else (if (result i32) (i32.eq (local.get $b) (i32.const -1))
                (then (i32.const 0))
                (else (i32.rem_s (local.get $a) (local.get $b)))))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (local.get $a))
              (else (i32.rem_u (local.get $a) (local.get $b))))))
        ;; Retired: x0 stays zero, the next pc, the clocks.
        (i32.store (local.get $regs) (i32.const 0))
        (local.set $pc (local.get $next))
        (local.set $cycle (f64.add (local.get $cycle) (f64.convert_i32_u (local.get $clocks))))
        (local.set $instret (f64.add (local.get $instret) (f64.const 1)))
        (br $step)))
    (f64.store (i32.add (local.get $regs) (i32.const 128)) (local.get $cycle))
    (f64.store (i32.add (local.get $regs) (i32.const 136)) (local.get $instret))
    (f64.store (i32.add (local.get $regs) (i32.const 144)) (local.get $lastStore))
    (local.get $pc))

  ;; runSeed(pc, cycle, instret, cycleLimit, stopAt, stale, barrel) -> pc: runWords
  ;; for halfword slots on AXI-Lite (stale is always -1 there, and not looked at): a slot a halfword, an
  ;; instruction 2 or 4 bytes, every jump's target fetch a transaction, a target that
  ;; straddles two words its chained second fetch, and a store into the BRAM drops the
  ;; four slots it may have changed (here: leaves them to the loop when decoded).
  (func (export "runSeed") (param $pc i32) (param $cycle f64) (param $instret f64)
    (param $cycleLimit f64) (param $stopAt f64) (param $stale i32) (param $barrel i32) (result i32)
    (local $fields i32) (local $imms i32) (local $regs i32) (local $badPc i32)
    (local $k i32) (local $f i32) (local $imm i32) (local $rdp i32) (local $a i32) (local $b i32)
    (local $clocks i32) (local $next i32) (local $addr i32) (local $w i32) (local $n i32)
    (local $lastStore f64) (local $at i32) (local $skip f64)
    (local $readClock f64) (local $promise f64) (local $o i32) (local $wa i32) (local $wait i32) (local $look i32)
    ;; Halfword slots: fields at R, immediates at 3R, registers at 5R (layout()).
    (local.set $fields (global.get $ram))
    (local.set $imms (i32.mul (global.get $ram) (i32.const 3)))
    (local.set $regs (i32.mul (global.get $ram) (i32.const 5)))
    ;; A fetch is legal only from a halfword address inside the BRAM.
    (local.set $badPc (i32.or (i32.xor (i32.sub (global.get $ram) (i32.const 1)) (i32.const -1)) (i32.const 1)))
    (local.set $lastStore (f64.const -1))
    (block $leave
      (loop $step
        (br_if $leave (f64.ge (local.get $cycle) (local.get $cycleLimit)))
        (br_if $leave (f64.ge (local.get $instret) (local.get $stopAt)))
        (br_if $leave (i32.and (local.get $pc) (local.get $badPc)))
        (local.set $k (i32.shr_u (local.get $pc) (i32.const 1)))
        (local.set $f (i32.load (i32.add (local.get $fields) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $imm (i32.load (i32.add (local.get $imms) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $rdp (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 4)) (i32.const 124))))
        (local.set $a (i32.load (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 9)) (i32.const 124)))))
        (local.set $b (i32.load (i32.add (local.get $regs) (i32.and (i32.shr_u (local.get $f) (i32.const 14)) (i32.const 124)))))
        (local.set $clocks (i32.and (i32.shr_u (local.get $f) (i32.const 21)) (i32.const 255)))
        (local.set $next (i32.sub (i32.add (local.get $pc) (i32.const 4)) (i32.and (i32.shr_u (local.get $f) (i32.const 28)) (i32.const 2))))
        (block $retire
        (block $remu (block $rem (block $divu (block $div
        (block $mulhu (block $mulhsu (block $mulh (block $mul
        (block $and (block $or (block $sra (block $srl (block $xor (block $sltu (block $slt (block $sll (block $sub (block $add
        (block $srai (block $srli (block $slli (block $andi (block $ori (block $xori (block $sltiu (block $slti (block $addi
        (block $store (block $sw (block $sh (block $sb
        (block $load (block $lhu (block $lbu (block $lw (block $lh (block $lb
        (block $branch (block $bgeu (block $bltu (block $bge (block $blt (block $bne (block $beq
        (block $jalr (block $jal (block $auipc (block $lui
          (br_table
            $leave $leave $retire                       ;; UNDECODED ILLEGAL NOP
            $lui $auipc $jal $jalr                      ;; LUI AUIPC JAL JALR
            $beq $bne $blt $bge $bltu $bgeu             ;; BEQ BNE BLT BGE BLTU BGEU
            $lb $lh $lw $lbu $lhu                       ;; LB LH LW LBU LHU
            $sb $sh $sw                                 ;; SB SH SW
            $addi $slti $sltiu $xori $ori $andi $slli $srli $srai
            $add $sub $sll $slt $sltu $xor $srl $sra $or $and
            $retire $leave $leave                       ;; FENCE ECALL EBREAK
            $leave $leave $leave $leave $leave $leave   ;; RDCYCLE(H) RDTIME(H) RDINSTRET(H)
            $mul $mulh $mulhsu $mulhu $div $divu $rem $remu
            $leave                                      ;; BREAK, and anything after
            (i32.and (local.get $f) (i32.const 63))))
          ;; LUI
          (i32.store (local.get $rdp) (local.get $imm)) (br $retire))
          ;; AUIPC
          (i32.store (local.get $rdp) (i32.add (local.get $pc) (local.get $imm))) (br $retire))
          ;; JAL: the target's fetch is a transaction, and a target that straddles two words
          ;; takes its straddle and chained second fetch.
          (i32.store (local.get $rdp) (local.get $next))
          (local.set $next (i32.add (local.get $pc) (local.get $imm)))
          (local.set $clocks (i32.add (local.get $clocks) (global.get $axiExtra)))
          (if (i32.and (local.get $next) (i32.const 2)) (then
            (if (call $straddles (local.get $next)) (then
              (local.set $clocks (i32.add (local.get $clocks) (global.get $straddleTarget)))))))
          (br $retire))
          ;; JALR clears bit 0 of the target.
          (i32.store (local.get $rdp) (local.get $next))
          (local.set $next (i32.and (i32.add (local.get $a) (local.get $imm)) (i32.const -2)))
          (local.set $clocks (i32.add (local.get $clocks) (global.get $axiExtra)))
          (if (i32.and (local.get $next) (i32.const 2)) (then
            (if (call $straddles (local.get $next)) (then
              (local.set $clocks (i32.add (local.get $clocks) (global.get $straddleTarget)))))))
          (br $retire))
        ;; The branches: $n is whether taken.
          (local.set $n (i32.eq (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ne (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.lt_s (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ge_s (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.lt_u (local.get $a) (local.get $b))) (br $branch))
          (local.set $n (i32.ge_u (local.get $a) (local.get $b))))
          ;; Every branch, $n set.
          (br_if $retire (i32.eqz (local.get $n)))
          (local.set $next (i32.add (local.get $pc) (local.get $imm)))
          (local.set $clocks (i32.add (local.get $clocks) (i32.add (global.get $takenBranchExtra) (global.get $axiExtra))))
          ;; A target at a halfword address: its straddle, and the refetch when the fall-through's
          ;; word has it (bit 4 of lens), twice with a straddle.
          (if (i32.and (local.get $next) (i32.const 2)) (then
            (local.set $n (call $straddles (local.get $next)))
            (if (local.get $n) (then
              (local.set $clocks (i32.add (local.get $clocks) (global.get $straddleTarget)))))
            (if (i32.and (i32.load8_u (i32.add (global.get $lensAt) (local.get $k))) (i32.const 16)) (then
              (local.set $clocks (i32.add (local.get $clocks) (i32.shl (global.get $refetchPerWord) (local.get $n))))))))
          (br $retire))
        ;; The loads: $n is which (0 LB, 1 LH, 2 LW, 3 LBU, 4 LHU). A device's through the import
        ;; with the loop's tail: the wait, the value, then a promise to repeat goes to pollRepeats.
          (local.set $n (i32.const 0)) (br $load))
          (local.set $n (i32.const 1)) (br $load))
          (local.set $n (i32.const 2)) (br $load))
          (local.set $n (i32.const 3)) (br $load))
          (local.set $n (i32.const 4)))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.and (local.get $addr)
            (select (i32.const 3) (select (i32.const 1) (i32.const 0) (i32.or (i32.eq (local.get $n) (i32.const 1)) (i32.eq (local.get $n) (i32.const 4))))
              (i32.eq (local.get $n) (i32.const 2)))))
          (local.set $at (i32.const -1))
          (if (i32.lt_u (local.get $addr) (global.get $ram))
            (then (local.set $w (i32.load (i32.and (local.get $addr) (i32.const -4)))))
            (else
              (local.set $at (i32.load8_u (i32.add (global.get $dataAtAt) (local.get $k))))
              (local.set $readClock (f64.add (local.get $cycle) (f64.convert_i32_u (local.get $at))))
              ;; A word of the device window that answers now: its value, no wait, its promise.
              ;; Whether the window answers: it is on and addr is one of its words.
              (local.set $o (i32.sub (local.get $addr) (i32.load offset=4 (global.get $windowAt))))
              (if (i32.and (i32.lt_u (local.get $o) (i32.const 128)) (i32.ne (i32.load (global.get $windowAt)) (i32.const 0)))
                (then
                  (local.set $wa (i32.add (global.get $windowAt) (i32.shr_u (local.get $o) (i32.const 2))))
                  (local.set $o (i32.load8_u offset=136 (local.get $wa))))
                (else (local.set $o (i32.const 0))))
              (if (local.get $o) (then
                (local.set $promise (f64.load offset=8 (i32.add (global.get $windowAt)
                  (i32.shl (i32.load8_u offset=168 (local.get $wa)) (i32.const 3)))))
                (if (i32.eqz (f64.lt (local.get $readClock) (local.get $promise))) (then (local.set $o (i32.const 0))))))
              (if (local.get $o)
                (then
                  (local.set $w (i32.load offset=68 (i32.add (global.get $windowAt) (i32.shl (local.get $o) (i32.const 2)))))
                  (local.set $wait (i32.const 0))
                  (local.set $look (i32.const 0)))
                (else
                  (local.set $w (call $load (local.get $addr) (local.get $readClock)))
                  (if (i32.lt_s (local.get $w) (i32.const 0)) (then
                    ;; Not retired: a bus error or a restart, the loop's.
                    (f64.store (i32.add (local.get $regs) (i32.const 152)) (f64.const 3))
                    (br $leave)))
                  (local.set $clocks (i32.add (local.get $clocks) (local.get $w)))
                  (local.set $wait (i32.load offset=8 (global.get $ioAt)))
                  (local.set $promise (f64.load offset=16 (global.get $ioAt)))
                  (local.set $look (i32.load offset=4 (global.get $ioAt)))
                  (local.set $w (i32.load (global.get $ioAt)))))))
          (local.set $b (i32.shl (i32.and (local.get $addr) (i32.const 3)) (i32.const 3)))
          (local.set $w
            (if (result i32) (i32.eq (local.get $n) (i32.const 2)) (then (local.get $w))
              (else (if (result i32) (i32.eq (local.get $n) (i32.const 3))
                (then (i32.and (i32.shr_u (local.get $w) (local.get $b)) (i32.const 0xff)))
                (else (if (result i32) (i32.eqz (local.get $n))
                  (then (i32.shr_s (i32.shl (local.get $w) (i32.sub (i32.const 24) (local.get $b))) (i32.const 24)))
                  (else (if (result i32) (i32.eq (local.get $n) (i32.const 4))
                    (then (i32.and (i32.shr_u (local.get $w) (local.get $b)) (i32.const 0xffff)))
                    (else (i32.shr_s (i32.shl (local.get $w) (i32.sub (i32.const 16) (local.get $b))) (i32.const 16)))))))))))
          (i32.store (local.get $rdp) (local.get $w))
          (br_if $retire (i32.lt_s (local.get $at) (i32.const 0)))
          (i32.store (local.get $regs) (i32.const 0))
          (if (local.get $look) (then
            ;; The machine must look up: retired by the loop (Cpu.lookUp).
            (f64.store (i32.add (local.get $regs) (i32.const 152)) (f64.const 2))
            (br $leave)))
          (if (f64.gt (local.get $promise) (f64.add (local.get $readClock) (global.get $pollWindow)))
            (then
              ;; A poll-loop candidate: recorded in the poll history, and the iterations of a
              ;; poll loop it repeats skipped (recordRead: Cpu.pollRepeats).
              (local.set $skip (call $recordRead (local.get $pc) (local.get $addr) (local.get $w) (local.get $wait) (local.get $promise)
                (f64.add (local.get $cycle) (f64.convert_i32_u (local.get $clocks)))
                (f64.add (local.get $instret) (f64.const 1))
                (select (local.get $lastStore) (f64.load offset=176 (local.get $regs)) (f64.ge (local.get $lastStore) (f64.const 0)))
                (local.get $readClock) (local.get $cycleLimit) (local.get $stopAt) (i32.add (local.get $regs) (i32.const 160))))
              (if (f64.gt (local.get $skip) (f64.const 0)) (then
                (local.set $cycle (f64.add (local.get $cycle) (f64.mul (local.get $skip) (f64.load offset=160 (local.get $regs)))))
                (local.set $instret (f64.add (local.get $instret) (f64.mul (local.get $skip) (f64.load offset=168 (local.get $regs))))))))
            (else (local.set $lastStore (local.get $instret))))
          (br $retire))
        ;; The stores: $n is the access's size less one. Into the BRAM, aligned, not
        ;; into the word after this one (prefetched) nor into a decoded word.
          (local.set $n (i32.const 0)) (br $store))
          (local.set $n (i32.const 1)) (br $store))
          (local.set $n (i32.const 3)))
          (local.set $addr (i32.add (local.get $a) (local.get $imm)))
          (br_if $leave (i32.and (local.get $addr) (local.get $n)))
          (if (i32.ge_u (local.get $addr) (global.get $ram)) (then
            ;; A word store the device window latches: its value, no wait.
            (if (i32.eq (local.get $n) (i32.const 3)) (then
              (local.set $o (i32.sub (local.get $addr) (i32.load offset=4 (global.get $windowAt))))
              (if (i32.and (i32.lt_u (local.get $o) (i32.const 128)) (i32.ne (i32.load (global.get $windowAt)) (i32.const 0)))
                (then (local.set $o (i32.load8_u offset=200 (i32.add (global.get $windowAt) (i32.shr_u (local.get $o) (i32.const 2))))))
                (else (local.set $o (i32.const 0))))
              ;; A queue's push (128 + q), or a latch (1..127).
              (if (i32.ge_u (local.get $o) (i32.const 128))
                (then
                  (if (call $push (i32.and (local.get $o) (i32.const 3)) (local.get $b)
                      (f64.add (local.get $cycle) (f64.convert_i32_u (i32.load8_u (i32.add (global.get $dataAtAt) (local.get $k))))))
                    (then
                      (local.set $lastStore (local.get $instret))
                      (br $retire))))
                (else (if (local.get $o) (then
                  (i32.store offset=68 (i32.add (global.get $windowAt) (i32.shl (local.get $o) (i32.const 2))) (local.get $b))
                  (local.set $lastStore (local.get $instret))
                  (br $retire)))))))
            ;; A device: PicoRV32 replicates a byte or half across the word and selects lanes with wstrb.
            (local.set $lastStore (local.get $instret))
            (local.set $w (call $store (local.get $addr)
              (if (result i32) (i32.eq (local.get $n) (i32.const 3)) (then (local.get $b))
                (else (if (result i32) (local.get $n)
                  (then (i32.mul (i32.and (local.get $b) (i32.const 0xffff)) (i32.const 0x10001)))
                  (else (i32.mul (i32.and (local.get $b) (i32.const 0xff)) (i32.const 0x1010101))))))
              (if (result i32) (i32.eq (local.get $n) (i32.const 3)) (then (i32.const 15))
                (else (i32.shl (i32.or (i32.shl (local.get $n) (i32.const 1)) (i32.const 1)) (i32.and (local.get $addr) (i32.const 3)))))
              (f64.add (local.get $cycle) (f64.convert_i32_u (i32.load8_u (i32.add (global.get $dataAtAt) (local.get $k)))))))
            (if (i32.lt_s (local.get $w) (i32.const 0)) (then
              ;; Done, but not retired: the loop finishes it (runWords' deviceStoreTail).
              (f64.store (i32.add (local.get $regs) (i32.const 152)) (f64.const 1))
              (br $leave)))
            (local.set $clocks (i32.add (local.get $clocks) (local.get $w)))
            (br $retire)))
          ;; The word's two halfword slots and the two before it: decoded, the loop drops them.
          (local.set $w (i32.add (local.get $fields) (i32.shl (i32.and (i32.shr_u (local.get $addr) (i32.const 1)) (i32.const -2)) (i32.const 2))))
          (br_if $leave (i32.or (i32.load (local.get $w)) (i32.load offset=4 (local.get $w))))
          (if (i32.ge_u (local.get $addr) (i32.const 4)) (then
            (br_if $leave (i32.or (i32.load offset=0 (i32.sub (local.get $w) (i32.const 8))) (i32.load offset=4 (i32.sub (local.get $w) (i32.const 8)))))))
          (if (i32.eq (local.get $n) (i32.const 3))
            (then (i32.store (local.get $addr) (local.get $b)))
            (else (if (local.get $n)
              (then (i32.store16 (local.get $addr) (local.get $b)))
              (else (i32.store8 (local.get $addr) (local.get $b))))))
          (local.set $lastStore (local.get $instret))
          (br $retire))
        ;; Register-immediate.
          (i32.store (local.get $rdp) (i32.add (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_s (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_u (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.xor (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.or (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.and (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shl (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shr_u (local.get $a) (local.get $imm))) (br $retire))
          (i32.store (local.get $rdp) (i32.shr_s (local.get $a) (local.get $imm))) (br $retire))
        ;; Register-register. A shift by a register without BARREL_SHIFTER costs
        ;; (n>>2)+(n&3) clocks more (timing.ts shiftSteps).
          (i32.store (local.get $rdp) (i32.add (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.sub (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shl (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_s (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.lt_u (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.xor (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shr_u (local.get $a) (local.get $b))) (br $retire))
          (if (i32.eqz (local.get $barrel)) (then
            (local.set $n (i32.and (local.get $b) (i32.const 31)))
            (local.set $clocks (i32.add (local.get $clocks)
              (i32.add (i32.shr_u (local.get $n) (i32.const 2)) (i32.and (local.get $n) (i32.const 3)))))))
          (i32.store (local.get $rdp) (i32.shr_s (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.or (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.and (local.get $a) (local.get $b))) (br $retire))
        ;; M: the products' high words from 64-bit products.
          (i32.store (local.get $rdp) (i32.mul (local.get $a) (local.get $b))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_s
            (i64.mul (i64.extend_i32_s (local.get $a)) (i64.extend_i32_s (local.get $b))) (i64.const 32)))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_s
            (i64.mul (i64.extend_i32_s (local.get $a)) (i64.extend_i32_u (local.get $b))) (i64.const 32)))) (br $retire))
          (i32.store (local.get $rdp) (i32.wrap_i64 (i64.shr_u
            (i64.mul (i64.extend_i32_u (local.get $a)) (i64.extend_i32_u (local.get $b))) (i64.const 32)))) (br $retire))
        ;; Division as RISC-V defines it: by zero gives -1 (DIV, DIVU) or the dividend
        ;; (REM, REMU); the overflow -2^31 / -1 gives -2^31 and remainder 0 (WebAssembly
        ;; traps on both, so they are cases here).
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (i32.const -1))
              (else (if (result i32) (i32.eq (local.get $b) (i32.const -1))
                (then (i32.sub (i32.const 0) (local.get $a)))
                (else (i32.div_s (local.get $a) (local.get $b)))))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (i32.const -1))
              (else (i32.div_u (local.get $a) (local.get $b)))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (local.get $a))
              (else (if (result i32) (i32.eq (local.get $b) (i32.const -1))
                (then (i32.const 0))
                (else (i32.rem_s (local.get $a) (local.get $b)))))))
          (br $retire))
          (i32.store (local.get $rdp)
            (if (result i32) (i32.eqz (local.get $b)) (then (local.get $a))
              (else (i32.rem_u (local.get $a) (local.get $b))))))
        ;; Retired: x0 stays zero, the next pc, the clocks.
        (i32.store (local.get $regs) (i32.const 0))
        (local.set $pc (local.get $next))
        (local.set $cycle (f64.add (local.get $cycle) (f64.convert_i32_u (local.get $clocks))))
        (local.set $instret (f64.add (local.get $instret) (f64.const 1)))
        (br $step)))
    (f64.store (i32.add (local.get $regs) (i32.const 128)) (local.get $cycle))
    (f64.store (i32.add (local.get $regs) (i32.const 136)) (local.get $instret))
    (f64.store (i32.add (local.get $regs) (i32.const 144)) (local.get $lastStore))
    (local.get $pc))

  ;; A push of command word 3 `w3` onto the device window's queue q at the store's clock (cpu-kernel.ts
  ;; DeviceWindow): 0 when the queue is full (the bus takes the store), else 1, the command
  ;; in its slot at the later of the store's clock and the device's, the level and issued
  ;; count one up, and, when q's unit is idle, promises[q] and time[1] cleared to -1.
  ;; Window offsets: values +72 (staging 0-2, issued 3 + q, level 9 + q), promises +8, time
  ;; +232, queue clocks +248, queue words +504, heads +1016, running +1032, the depth's mask +1048.
  (func $push (param $q i32) (param $w3 i32) (param $clock f64) (result i32)
    (local $win i32) (local $level i32) (local $mask i32) (local $slot i32) (local $words i32)
    (local.set $win (global.get $windowAt))
    (local.set $level (i32.load offset=108 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2)))))
    (local.set $mask (i32.load offset=1048 (local.get $win)))
    (if (i32.gt_s (local.get $level) (local.get $mask)) (then (return (i32.const 0))))
    (local.set $slot (i32.add (i32.mul (local.get $q) (i32.add (local.get $mask) (i32.const 1)))
      (i32.and (i32.add (local.get $level) (i32.load offset=1016 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2)))))
        (local.get $mask))))
    (local.set $words (i32.add (local.get $win) (i32.shl (local.get $slot) (i32.const 4))))
    (i32.store offset=504 (local.get $words) (i32.load offset=72 (local.get $win)))
    (i32.store offset=508 (local.get $words) (i32.load offset=76 (local.get $win)))
    (i32.store offset=512 (local.get $words) (i32.load offset=80 (local.get $win)))
    (i32.store offset=516 (local.get $words) (local.get $w3))
    (f64.store offset=248 (i32.add (local.get $win) (i32.shl (local.get $slot) (i32.const 3)))
      (f64.max (local.get $clock) (f64.load offset=232 (local.get $win))))
    (i32.store offset=108 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2))) (i32.add (local.get $level) (i32.const 1)))
    (if (i32.eqz (i32.load offset=1032 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2))))) (then
      (f64.store offset=8 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 3))) (f64.const -1))
      (f64.store offset=240 (local.get $win) (f64.const -1))))
    (i32.store offset=84 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2)))
      (i32.add (i32.load offset=84 (i32.add (local.get $win) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 1)))
    (i32.const 1))

  ;; Whether the 32-bit instruction at halfword address `at` straddles two words: `at` inside
  ;; the BRAM and its low half's bits 1:0 are 11 (not compressed).
  (func $straddles (param $at i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $at) (global.get $ram))
      (then (i32.eq (i32.and (i32.load16_u (local.get $at)) (i32.const 3)) (i32.const 3)))
      (else (i32.const 0))))

  ;; recordRead(pc, addr, value, wait, promise, launch, retired, lastEffect, readClock,
  ;; cycleLimit, stopAt) -> 1 when Cpu.pollRepeats, given this read, skips iterations: the poll
  ;; history holds an earlier read at pc of the same address, value and wait with nothing
  ;; since (lastEffect before its retired count), at least one whole iteration fits before the
  ;; promises of the reads since run out and before the limits, and the registers are those
  ;; after that read. Left to pollRepeats then. Else records the read at the history's next
  ;; slot as pollRepeats does when it skips nothing, and returns 0.
  ;; Cpu.pollRepeats, for a read at `pc` of `addr` that gave `value` after `wait` clocks with a
  ;; promise (`launch`: the next instruction's launch clock, `retired`: the retired count after
  ;; the read, `lastEffect`: the instret of the run's last effect or -1): the poll-loop iterations
  ;; to skip (0: none), the read recorded in the poll history, as pollRepeats does both; a
  ;; skipped iteration's clocks and instructions in the f64s at `iteration`.
  (func $recordRead (param $pc i32) (param $addr i32) (param $value i32) (param $wait i32) (param $promise f64)
    (param $launch f64) (param $retired f64) (param $lastEffect f64)
    (param $readClock f64) (param $cycleLimit f64) (param $stopAt f64) (param $iteration i32) (result f64)
    (local $h i32) (local $next i32) (local $count i32) (local $back i32) (local $i i32) (local $j i32)
    (local $bound f64) (local $clocks f64) (local $instrs f64) (local $m f64) (local $n f64) (local $r v128)
    (local.set $h (global.get $pollAt))
    (local.set $next (i32.load (local.get $h)))
    (local.set $count (i32.load offset=4 (local.get $h)))
    (local.set $back (i32.const 1))
    (local.set $bound (local.get $promise))
    (block $none
      (loop $find
        (br_if $none (i32.gt_s (local.get $back) (local.get $count)))
        (local.set $i (i32.and (i32.sub (local.get $next) (local.get $back)) (i32.const 3)))
        (local.set $j (i32.add (local.get $h) (i32.shl (local.get $i) (i32.const 3))))
        (if (i32.eq (i32.load offset=200 (i32.add (local.get $h) (i32.shl (local.get $i) (i32.const 2)))) (local.get $pc)) (then
          ;; The latest read at pc: the same read, nothing since?
          (br_if $none (f64.ne (f64.load offset=8 (local.get $j)) (f64.convert_i32_s (local.get $addr))))
          (br_if $none (f64.ne (f64.load offset=40 (local.get $j)) (f64.convert_i32_s (local.get $value))))
          (br_if $none (f64.ne (f64.load offset=72 (local.get $j)) (f64.convert_i32_s (local.get $wait))))
          (br_if $none (i32.eqz (f64.lt (local.get $lastEffect) (f64.load offset=168 (local.get $j)))))
          ;; The iterations before the promises and the limits run out: none, or too many, is no skip.
          (local.set $clocks (f64.sub (local.get $launch) (f64.load offset=136 (local.get $j))))
          (local.set $instrs (f64.sub (local.get $retired) (f64.load offset=168 (local.get $j))))
          (local.set $m (f64.min
            (f64.min
              (f64.floor (f64.div (f64.sub (f64.sub (local.get $bound) (f64.const 1)) (local.get $readClock)) (local.get $clocks)))
              (f64.floor (f64.div (f64.sub (local.get $cycleLimit) (local.get $launch)) (local.get $clocks))))
            (f64.floor (f64.div (f64.sub (local.get $stopAt) (local.get $retired)) (local.get $instrs)))))
          (br_if $none (i32.eqz (f64.gt (local.get $m) (f64.const 0))))
          (br_if $none (i32.eqz (f64.lt (local.get $m) (f64.const 9007199254740991))))
          ;; The registers after that read (x0 is 0 in both): an iteration that changes one is no repeat.
          (local.set $j (i32.add (i32.add (local.get $h) (i32.const 216)) (i32.shl (local.get $i) (i32.const 7))))
          (local.set $i (i32.mul (global.get $ram) (i32.const 5)))
          (local.set $r (v128.xor (v128.load offset=0 (local.get $j)) (v128.load offset=0 (local.get $i))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=16 (local.get $j)) (v128.load offset=16 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=32 (local.get $j)) (v128.load offset=32 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=48 (local.get $j)) (v128.load offset=48 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=64 (local.get $j)) (v128.load offset=64 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=80 (local.get $j)) (v128.load offset=80 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=96 (local.get $j)) (v128.load offset=96 (local.get $i)))))
          (local.set $r (v128.or (local.get $r) (v128.xor (v128.load offset=112 (local.get $j)) (v128.load offset=112 (local.get $i)))))
          (br_if $none (v128.any_true (local.get $r)))
          ;; A repeat: the loop's reads after that one move on with the skipped iterations; the
          ;; reads before it are forgotten (their retired counts would no longer say what ran since).
          (local.set $n (local.get $m))
          (f64.store (local.get $iteration) (local.get $clocks))
          (f64.store offset=8 (local.get $iteration) (local.get $instrs))
          (local.set $count (i32.sub (local.get $back) (i32.const 1)))
          (i32.store offset=4 (local.get $h) (local.get $count))
          (block $moved
            (loop $move
              (local.set $back (i32.sub (local.get $back) (i32.const 1)))
              (br_if $moved (i32.eqz (local.get $back)))
              (local.set $j (i32.add (local.get $h) (i32.shl (i32.and (i32.sub (local.get $next) (local.get $back)) (i32.const 3)) (i32.const 3))))
              (f64.store offset=136 (local.get $j) (f64.add (f64.load offset=136 (local.get $j)) (f64.mul (local.get $n) (local.get $clocks))))
              (f64.store offset=168 (local.get $j) (f64.add (f64.load offset=168 (local.get $j)) (f64.mul (local.get $n) (local.get $instrs))))
              (br $move)))
          (local.set $launch (f64.add (local.get $launch) (f64.mul (local.get $n) (local.get $clocks))))
          (local.set $retired (f64.add (local.get $retired) (f64.mul (local.get $n) (local.get $instrs))))
          (br $none)))
        (if (f64.lt (f64.load offset=104 (local.get $j)) (local.get $bound)) (then
          (local.set $bound (f64.load offset=104 (local.get $j)))))
        (local.set $back (i32.add (local.get $back) (i32.const 1)))
        (br $find)))
    ;; The read, recorded as the latest (after a skip: at the loop's new launch and retired count).
    (local.set $j (i32.add (local.get $h) (i32.shl (local.get $next) (i32.const 3))))
    (i32.store offset=200 (i32.add (local.get $h) (i32.shl (local.get $next) (i32.const 2))) (local.get $pc))
    (f64.store offset=8 (local.get $j) (f64.convert_i32_s (local.get $addr)))
    (f64.store offset=40 (local.get $j) (f64.convert_i32_s (local.get $value)))
    (f64.store offset=72 (local.get $j) (f64.convert_i32_s (local.get $wait)))
    (f64.store offset=104 (local.get $j) (local.get $promise))
    (f64.store offset=136 (local.get $j) (local.get $launch))
    (f64.store offset=168 (local.get $j) (local.get $retired))
    ;; The registers after the read (128 bytes).
    (local.set $j (i32.add (i32.add (local.get $h) (i32.const 216)) (i32.shl (local.get $next) (i32.const 7))))
    (local.set $i (i32.mul (global.get $ram) (i32.const 5)))
    (v128.store offset=0 (local.get $j) (v128.load offset=0 (local.get $i)))
    (v128.store offset=16 (local.get $j) (v128.load offset=16 (local.get $i)))
    (v128.store offset=32 (local.get $j) (v128.load offset=32 (local.get $i)))
    (v128.store offset=48 (local.get $j) (v128.load offset=48 (local.get $i)))
    (v128.store offset=64 (local.get $j) (v128.load offset=64 (local.get $i)))
    (v128.store offset=80 (local.get $j) (v128.load offset=80 (local.get $i)))
    (v128.store offset=96 (local.get $j) (v128.load offset=96 (local.get $i)))
    (v128.store offset=112 (local.get $j) (v128.load offset=112 (local.get $i)))
    (i32.store (local.get $h) (i32.and (i32.add (local.get $next) (i32.const 1)) (i32.const 3)))
    (i32.store offset=4 (local.get $h)
      (select (i32.add (local.get $count) (i32.const 1)) (local.get $count) (i32.lt_s (local.get $count) (i32.const 4))))
    (local.get $n))
)
