; play.s -- game start, per-player state machine, piece control

start_game:
.if MODE_LATE
    lda MODESEL
    sta MODE
.endif
    jsr screen_off
    jsr clear_screen
    lda #<play_script
    sta ptr2
    lda #>play_script
    sta ptr2+1
    jsr draw_script
    jsr draw_walls
    jsr flush_attr
    ; clear both fields: walls 00 08 at x = 0 and 7, cells empty
    ldx #0
@f:
    txa
    and #$0F
.if EMPTY = 0
    ldy #0
    cmp #1
    beq @wall
    cmp #$0F
    bne @put
@wall:
    ldy #WALL
@put:
    tya
.else
    tay
    lda empty_row,y
.endif
    sta FIELD1,x
    sta FIELD2,x
    inx
    cpx #$E0
    bne @f
    ; per-player init
    ldx #1
@p:
    lda #0
    sta CHAIN,x
    sta NREM,x
    sta PIECES,x
    sta CSC0,x
    sta CSC1,x
    sta CSC2,x
    sta STATUS,x
    sta STATT,x
    sta SPAWNED,x
    sta GROUNDED,x
    sta DAS,x
    sta PTYPE,x
    sta CURP,x
    sta CURC,x
.if NEXT_SPLIT
    sta NLAG,x
.endif
    lda #1
    sta DIRTY,x
    lda #$FF
    sta SHSTAT,x           ; force redraw of status/pending
    sta SHPEND,x
    sta SHSC0,x            ; force redraw of score
.if EMPTY <> 0
    lda #EMPTY              ; no piece yet
    sta CURP,x
    sta CURC,x
.endif
    lda #SPAWN_ORI
    sta IORI,x
.if ORI_SPLIT
    lda #SPAWN_ORI_PUB
    sta ORI,x
.endif
    lda #START_X
    sta PX,x
    lda #START_Y
    sta PY,x
    lda #FALL_NORMAL
    sta DROPT,x
    dex
    bpl @p
    ldx #5
    lda #0
@s:
    sta SCORE,x
    dex
    bpl @s
    ; pop bits of both players (A = 0): a 2P game that ends while the survivor's chain is popping
    ; leaves them set (the pop that clears them never runs), and the next game's first pop would
    ; also take those stale cells
    ldx #POPBITS_LEN - 1
@pb:
    sta POPBITS,x
    dex
    bpl @pb
    sta PEND
    sta PEND+1
    sta PEND+2
    sta PEND+3
.if EMPTY <> 0
    lda #EMPTY              ; no next piece (P2 in 1P keeps this)
.endif
    sta NEXTP
    sta NEXTC
    sta NEXTP+2
    sta NEXTC+2
.if NEXT_SPLIT
    sta INEXTP
    sta INEXTC
    sta INEXTP+2
    sta INEXTC+2
.endif
.if EMPTY <> 0
    lda #0
.endif
    sta WINNER
    sta PAUSED
    sta SPAWNANY
    sta LEVEL
.if LEVEL_PIECES
    lda #FALL_NORMAL        ; the curve starts at level 0
    sta FALLN
    lda #LEVEL_PIECES
    sta LVLCNT
.endif
    ; seed
.ifdef FIXED_SEED
    lda #<SEED_VALUE
    sta SEEDLO
    lda #>SEED_VALUE
    sta SEEDHI
.else
    lda FRAMELO
    sta SEEDLO
    lda FRAMEHI
    sta SEEDHI
    ora SEEDLO
    bne :+
    lda #1
    sta SEEDLO
:
.endif
    ldx #1
@r:
    lda SEEDLO
    sta RNGLO,x
    eor #$E1
    sta NRNGLO,x
    lda SEEDHI
    sta RNGHI,x
    eor #$AC
    sta NRNGHI,x
    ora NRNGLO,x
    bne :+
    lda #1
    sta NRNGLO,x
:
    dex
    bpl @r
    ; players
    ldx #0
    jsr player_begin
    lda MODE
    beq @onep
    ldx #1
    jsr player_begin
    jmp @go
@onep:
    lda #PS_IDLE
    sta PST+1
    lda #$FF
    sta SDELAY+1
@go:
.if NEXT_SPLIT
    ldx #1
@pn:
    jsr publish_next
    dex
    bpl @pn
.endif
    lda #2
    sta GSTATE
    jsr hide_sprites
    jmp screen_on

.if EMPTY <> 0
; one field row: walls 00 08, cells with the empty code in the code byte
empty_row:
    .byte $00, WALL
    .repeat 6
    .if CELL = 1
    .byte $00, EMPTY
    .else
    .byte EMPTY, $00
    .endif
    .endrepeat
    .byte $00, WALL
.endif

player_begin:
    jsr gen_next
    lda #PS_WAIT
    sta PST,x
    lda #FIRST_DELAY
    sta SDELAY,x
    rts

; walls of both fields, floor
draw_walls:
    lda #$20
    sta fill_hi
    lda #$40                ; tile row 2
    sta fill_lo
    ldx #26
@row:
    lda $2002
    ldy #0
@w:
    lda fill_hi
    sta $2006
    lda fill_lo
    clc
    adc wall_cols,y
    sta $2006
    lda #$01
    sta $2007
    iny
    cpy #4
    bne @w
    lda fill_lo
    clc
    adc #32
    sta fill_lo
    bcc :+
    inc fill_hi
:
    dex
    bne @row
    ; floor: row 28 = $2380, cols 1..14 and 17..30
    lda #$23
    sta $2006
    lda #$81
    sta $2006
    lda #$02
    ldx #14
:
    sta $2007
    dex
    bne :-
    lda #$23
    sta $2006
    lda #$91
    sta $2006
    lda #$02
    ldx #14
:
    sta $2007
    dex
    bne :-
    rts

wall_cols:
    .byte 1, 14, 17, 30

play_script:
    .byte $20, $22, "1P", $FF
    .byte $20, $32, "2P", $FF
    .byte $20, $6F, "1P", $FF
    .byte $21, $2F, "2P", $FF
    .byte $21, $EF, "1P", $FF
    .byte $22, $4F, "2P", $FF
    .byte $00

; ---------------------------------------------------------------- play loop
play_state:
    lda #0
    sta CHECKED
    sta SPAWNANY
    sta SPAWNED
    sta SPAWNED+1
    lda PADNEW
    and #BTN_START
    beq @nopause
    lda PAUSED
    eor #1
    sta PAUSED
@nopause:
    lda PAUSED
    bne @render
    ldx #0
    jsr player_update
    ldx #1
    jsr player_update
.if LINKS
    ldx #0
    jsr relink
    ldx #1
    jsr relink
.endif
.if NEXT_SPLIT
    ldx #0
    jsr publish_next
    ldx #1
    jsr publish_next
.endif
    jsr check_end
@render:
    jsr render_play
    jmp main_end

; game over detection after both players ran
check_end:
    lda MODE
    bne @twop
    lda PST
    cmp #PS_DEAD
    bne @no
    lda #$F2                ; GAME OVER
    sta STATUS
    lda #0
    sta STATT
    lda #3
    sta GSTATE
@no:
    rts
@twop:
    ldy #0
    lda PST
    cmp #PS_DEAD
    bne :+
    ldy #2                  ; P1 dead -> P2 wins
:
    lda PST+1
    cmp #PS_DEAD
    bne :+
    tya
    eor #1                  ; 0 -> 1 (P1 wins), 2 -> 3 (both dead: draw)
    tay
:
    tya
    beq @no
    cmp #3
    bne :+
    lda #0
:
    sta WINNER
    ldx #1
@fr:
    lda PST,x
    cmp #PS_DEAD
    beq :+
    lda #PS_DONE
    sta PST,x
:
    lda #$FF
    sta SDELAY,x
    lda #0
    sta STATT,x
    dex
    bpl @fr
    lda WINNER
    bne @win
    lda #$F5                ; DRAW
    sta STATUS
    sta STATUS+1
    jmp @over
@win:
    cmp #1
    bne @p2w
    lda #$F3
    sta STATUS
    lda #$F4
    sta STATUS+1
    jmp @over
@p2w:
    lda #$F4
    sta STATUS
    lda #$F3
    sta STATUS+1
@over:
    lda #3
    sta GSTATE
    rts

player_update:
    stx player
    jsr set_field
    ; status timer
    lda STATT,x
    beq :+
    dec STATT,x
    bne :+
    lda #0
    sta STATUS,x
:
    lda PST,x
    asl a
    tay
    lda pst_tab+1,y
    pha
    lda pst_tab,y
    pha
    rts

pst_tab:
    .word ps_rts-1, ps_wait-1, ps_active-1, ps_grav-1, ps_check-1, ps_pop-1, ps_rts-1, ps_rts-1

ps_rts:
    rts

; ---------------------------------------------------------------- spawn
ps_wait:
    dec SDELAY,x
    beq :+
    rts
:
    ; spawn the next piece
    lda NEXTP,x             ; (index 2*p below)
    txa
    asl a
    tay
    lda INEXTP,y
    sta ICURP,x
    lda INEXTC,y
    sta ICURC,x
    ldy #0
    lda ICURP,x
    cmp #BIG
    bne :+
    ldy #1
:
    cmp #CARB
    bne :+
    ldy #2
:
    tya
    sta PTYPE,x
    jsr gen_next
.if NEXT_SPLIT
    lda #NEXT_LAG
    sta NLAG,x
.endif
    lda #3
    sta IPX,x
    lda #1
    sta IPY,x
    lda #SPAWN_ORI
    sta IORI,x
.if LEVEL_PIECES
    jsr level_tick
    lda FALLN
.else
    lda #FALL_NORMAL
.endif
    sta DROPT,x
    lda #0
    sta GROUNDED,x
    sta DAS,x
    lda #1
    sta SPAWNED,x
    sta SPAWNANY
    sta DIRTY,x
    lda #PS_ACTIVE
    sta PST,x
.if POSE_LATE
    lda #POSE_LATE          ; published (and controllable) POSE_LATE frames from now
    sta LATE,x
    rts
.else
    jmp update_sprite_pos
.endif

.if LEVEL_PIECES
; A piece spawns (either player's): every LEVEL_PIECES pieces the level byte rises (up to 255) and the
; gravity takes FALL_STEP frames per row off, down to FALL_MIN. Pieces 1..LEVEL_PIECES of a game fall
; at level 0, the next LEVEL_PIECES at level 1, and so on. Keeps X.
level_tick:
    lda LVLCNT
    bne @count
    lda LEVEL
    cmp #$FF
    beq :+
    inc LEVEL
:
    lda FALLN
    sec
    sbc #FALL_STEP
    bcc @floor              ; below 0
    cmp #FALL_MIN
    bcs @set
@floor:
    lda #FALL_MIN
@set:
    sta FALLN
    lda #LEVEL_PIECES
    sta LVLCNT
@count:
    dec LVLCNT
    rts
.endif

; generate the next piece of player x into NEXTP/NEXTC
gen_next:
    inc PIECES,x
    txa
    asl a
    sta tmp13
    lda ITEMOPT
    beq @pair
    lda PIECES,x
    and #ITEM_PERIOD_MASK
    bne @pair
    lda ITEMOPT
    ldy #BIG
    cmp #1
    beq @item
.if ITEMS_AT_BOOT = 3
    ; both items: Big Puyo and Carbuncle by turns (bit 4 of the piece count)
    cmp #3
    bne @carb
    lda PIECES,x
    and #ITEM_PERIOD_MASK + 1
    beq @item
@carb:
.endif
    ldy #CARB
@item:
    tya
    ldy tmp13
    sta INEXTP,y
    sta INEXTC,y
    rts
@pair:
    jsr rand_colour
    ldy tmp13
    sta INEXTP,y
    jsr rand_colour
    ldy tmp13
    sta INEXTC,y
    rts

.if NEXT_SPLIT
; publish player x's next pair to the contract bytes, unless they still show the spawned pair
publish_next:
    lda NLAG,x
    beq :+
    dec NLAG,x
    rts
:
    txa
    asl a
    tay
.if NEXT_TABLE
    stx tmp0
    ldx INEXTP,y
    lda next_tab,x
    sta NEXTP,y
    ldx INEXTC,y
    lda next_tab,x
    sta NEXTC,y
    ldx tmp0
.else
    lda INEXTP,y
    sta NEXTP,y
    lda INEXTC,y
    sta NEXTC,y
.endif
    rts
.endif

.if NEXT_TABLE
; the next bytes' value of each code (all codes are below 64)
next_tab:
    .repeat 64, C
    .if NEXT_TABLE = 1
    .if C >= COL1 && C <= COL1 + 5
    .byte C - COL1          ; colour index 0..5
    .elseif C = BIG
    .byte $40
    .elseif C = CARB
    .byte $41
    .else
    .byte $FF               ; empty (no next piece)
    .endif
    .else
    .byte C ^ $20
    .endif
    .endrepeat
.endif

rand_colour:
    jsr rng_next
    and #7
    cmp NCOLORS
    bcs rand_colour
    clc
    adc #COL1
    rts

; ---------------------------------------------------------------- active piece
ps_active:
.if POSE_LATE
    lda LATE,x
    beq @live
    dec LATE,x
    beq :+
    rts                     ; the piece waits: no input, no fall
:
    lda ICURP,x             ; publish the piece
    sta CURP,x
    lda ICURC,x
    sta CURC,x
    jmp update_sprite_pos
@live:
.endif
.if LOCK_MOVES = 0
    lda GROUNDED,x          ; landed: the pad no longer moves or turns the piece
    beq :+
    jmp @fall
:
.endif
    lda PTYPE,x
    bne @norot
    lda LPADNEW,x
    and #BTN_A
    beq :+
    lda #ROT_A
    jsr rotate
:
    lda LPADNEW,x
    and #BTN_B
    beq @norot
    lda #ROT_B
    jsr rotate
@norot:
    ; horizontal movement
    lda LPADNEW,x
    and #BTN_LEFT
    beq :+
    lda #0
    sta DAS,x
    lda #$FF
    jsr move
    jmp @fall
:
    lda LPADNEW,x
    and #BTN_RIGHT
    beq :+
    lda #0
    sta DAS,x
    lda #1
    jsr move
    jmp @fall
:
    lda LPAD,x
    and #(BTN_LEFT|BTN_RIGHT)
    beq @fall
    inc DAS,x
    lda DAS,x
    cmp #DAS_DELAY
    bcc @fall
    lda #(DAS_DELAY-DAS_RATE)
    sta DAS,x
    lda LPAD,x
    and #BTN_LEFT
    beq :+
    lda #$FF
    jsr move
    jmp @fall
:
    lda #1
    jsr move
@fall:
    lda IPX,x
    sta tx
    ldy IPY,x
    iny
    sty ty
    lda IORI,x
    sta tori
    jsr piece_fits
    bcs @landed
    lda #0
    sta GROUNDED,x
    lda LPAD,x
    and #BTN_DOWN
    beq @tick
    lda DROPT,x
    cmp #FALL_FAST+1
    bcc @tick
    lda #FALL_FAST
    sta DROPT,x
@tick:
    dec DROPT,x
    bne @done
    inc IPY,x
    lda LPAD,x
    and #BTN_DOWN
    beq :+
    lda #FALL_FAST
    bne :++
:
.if LEVEL_PIECES
    lda FALLN
.else
    lda #FALL_NORMAL
.endif
:
    sta DROPT,x
.if LOCK_DELAY = 0
    ; no lock delay: a piece that cannot fall further locks on the frame it got there
    lda IPX,x
    sta tx
    ldy IPY,x
    iny
    sty ty
    lda IORI,x
    sta tori
    jsr piece_fits
    bcs @lock
.endif
@done:
    jmp update_sprite_pos
@landed:
.if LOCK_DELAY = 0
    jmp @lock               ; it cannot fall (spawned or moved onto a stack): it locks at once
.else
    lda GROUNDED,x
    bne :+
    lda #1
    sta GROUNDED,x
    lda #LOCK_DELAY
    sta LOCKT,x
:
.endif
    lda LPAD,x
    and #BTN_DOWN
    bne @lock
    dec LOCKT,x
    bne @done
@lock:
    jsr update_sprite_pos
    jmp lock_piece

; A = +1 / -1
move:
    clc
    adc IPX,x
    sta tx
    lda IPY,x
    sta ty
    lda IORI,x
    sta tori
    jsr piece_fits
    bcs :+
    lda tx
    sta IPX,x
:
    rts

; A = ROT_A (A button) / ROT_B (B button): a step mod 4, or a rot_tab half
rotate:
    clc
    adc IORI,x
.if ROT_TABLE
    tay
    lda rot_tab,y
.else
    and #3
.endif
    sta tori
    lda IPX,x
    sta tx
    lda IPY,x
    sta ty
    jsr piece_fits
    bcc @ok
    lda tori
.if KICK_SIDE
    cmp #ORI_RIGHT
    bne :+
    dec tx
    jmp @kick
:
    cmp #ORI_LEFT
    bne :+
    inc tx
    jmp @kick
:
.endif
.if KICK_UP
    cmp #ORI_DOWN
    bne @fail
    lda ty
    beq @fail
    dec ty
.else
    jmp @fail
.endif
@kick:
    lda tx
    sta cx
    lda ty
    sta cy
    jsr cell_free
    bcs @fail
@ok:
    lda tx
    sta IPX,x
    lda ty
    sta IPY,x
    lda tori
    sta IORI,x
@fail:
    rts

; cell (cx, cy) free? C=0 free. Keeps X. Sets Y to the cell offset when inside.
cell_free:
    jsr cell_code
    bcs @blk
    bne @blk                ; Z still comes from cell_code's empty test: clc and rts leave it alone
    rts                     ; C=0: inside and empty
@blk:
    sec
    rts

; does player x's piece fit at (tx, ty, tori)? C=0 yes
piece_fits:
    lda tx
    sta cx
    lda ty
    sta cy
    jsr cell_free
    bcs @no
    lda PTYPE,x
    beq @pair
    cmp #1
    bne @yes
    inc cx
    jsr cell_free
    bcs @no
    dec cy
    jsr cell_free
    bcs @no
    dec cx
    jmp cell_free
@pair:
    ldy tori
    lda tx
    clc
    adc ori_dx,y
    sta cx
    lda ty
    clc
    adc ori_dy,y
    sta cy
    jmp cell_free
@yes:
    clc
@no:
    rts

; (dx, dy) from the pivot to the child, by orientation value
ori_dx:
    .repeat 4, O
    .if O = ORI_LEFT
    .byte $FF
    .elseif O = ORI_RIGHT
    .byte 1
    .else
    .byte 0
    .endif
    .endrepeat
ori_dy:
    .repeat 4, O
    .if O = ORI_UP
    .byte $FF
    .elseif O = ORI_DOWN
    .byte 1
    .else
    .byte 0
    .endif
    .endrepeat

.if ROT_TABLE
; orientation after a turn, by orientation value: A button at 0..3, B button at 4..7
.macro CW_OF o
    .if o = ORI_UP
    .byte ORI_RIGHT
    .elseif o = ORI_RIGHT
    .byte ORI_DOWN
    .elseif o = ORI_DOWN
    .byte ORI_LEFT
    .else
    .byte ORI_UP
    .endif
.endmacro
.macro CCW_OF o
    .if o = ORI_UP
    .byte ORI_LEFT
    .elseif o = ORI_LEFT
    .byte ORI_DOWN
    .elseif o = ORI_DOWN
    .byte ORI_RIGHT
    .else
    .byte ORI_UP
    .endif
.endmacro
rot_tab:
    .repeat 4, O
    .if A_CW
    CW_OF O
    .else
    CCW_OF O
    .endif
    .endrepeat
    .repeat 4, O
    .if A_CW
    CCW_OF O
    .else
    CW_OF O
    .endif
    .endrepeat
.endif

update_sprite_pos:
    lda IPX,x
    asl a
    asl a
    asl a
    asl a
    cpx #0
    beq :+
    clc
    adc #128
:
    sta SPRX,x
    lda IPY,x
    asl a
    asl a
    asl a
    asl a
    sta SPRY,x
.if ORI_SPLIT
    ldy IORI,x
    lda ori_pub,y
    sta ORI,x
.endif
.if POSE_SPLIT
    ; publish the pivot's cell, or the child's with XY_CHILD (an item has no child: its own X/Y),
    ; plus the X/Y bases
    lda IPY,x
    sta tmp0
    lda IPX,x
.if XY_CHILD
    ldy PTYPE,x
    bne :+
    ldy IORI,x
    clc
    adc ori_dx,y
    pha
    lda tmp0
    clc
    adc ori_dy,y
    sta tmp0
    pla
:
.endif
.if X_OFF <> 0
    clc
    adc #<X_OFF
.endif
    sta PX,x
    lda tmp0
.if Y_OFF <> 0
    clc
    adc #<Y_OFF
.endif
    sta PY,x
.endif
    rts

.if ORI_SPLIT
; the published orientation value of each ORI_* value
ori_pub:
    .repeat 4, O
    .byte ORI_BASE + ORI_STEP * O
    .endrepeat
.endif

; ---------------------------------------------------------------- lock
lock_piece:
.if TIMER_RESOLVE0
    lda #0                  ; 0 while the lock resolves; the countdown starts when it is over
.else
    lda #SPAWN_DELAY
.endif
    sta SDELAY,x
    lda #0
    sta DROPPED,x
    lda PTYPE,x
    beq @pair
    cmp #1
    beq @big
    jsr carbuncle_effect
    jmp @grav
@big:
    ; clear columns PX and PX+1, rows 0..13
    lda IPX,x
    asl a
    ora #CELL
    tay
    lda #EMPTY
:
    sta (ptr),y
    iny
    iny
    sta (ptr),y
    tya
    clc
    adc #14
    tay
    cpy #$E0
    lda #EMPTY
    bcc :-
    jmp @grav
@pair:
    lda IPX,x
    sta cx
    lda IPY,x
    sta cy
    jsr cell_free
    bcs :+
    lda ICURP,x
    sta (ptr),y
:
    ldy IORI,x
    lda IPX,x
    clc
    adc ori_dx,y
    sta cx
    lda IPY,x
    clc
    adc ori_dy,y
    sta cy
    jsr cell_free
    bcs @grav
    lda ICURC,x
    sta (ptr),y
@grav:
    lda #1
    FIELD_CHANGED
    lda #PS_GRAV
    sta PST,x
    lda #GRAV_FRAMES
    sta PTIMER,x
    rts

; Carbuncle landed at (PX, PY): recolour touched neighbours
carbuncle_effect:
    lda #0
    sta tmp12               ; target colour (0 = none yet)
    lda #$FF
    sta tmp13               ; lowest touched colour
    ; below
    lda IPX,x
    sta cx
    ldy IPY,x
    iny
    sty cy
    jsr carb_probe
    bcs :+
    sta tmp12               ; the colour below wins
:
    lda IPX,x
    sta cx
    dec cx
    lda IPY,x
    sta cy
    jsr carb_probe
    inc cx
    inc cx
    jsr carb_probe
    lda tmp12
    bne :+
    lda tmp13
    cmp #$FF
    beq @none
:
    sta tmp12
    ; paint: below, left, right
    lda IPX,x
    sta cx
    ldy IPY,x
    iny
    sty cy
    jsr carb_paint
    dec cy
    dec cx
    jsr carb_paint
    inc cx
    inc cx
    jsr carb_paint
@none:
    rts

; colour at (cx, cy) if it is a colour 1..6: C=0, A = code, updates tmp13 (min)
carb_probe:
    jsr cell_code
    bcs @no
    sec
    sbc #COL1
    cmp #6
    bcs @no
    adc #COL1
    cmp tmp13
    bcs :+
    sta tmp13
:
    clc
    rts
@no:
    sec
    rts

carb_paint:
    jsr cell_code
    bcs @no
    sec
    sbc #COL1
    cmp #6
    bcs @no
    lda tmp12
    sta (ptr),y
@no:
    rts

; code at (cx, cy) in A with Y = offset, C=1 if outside the field
cell_code:
    lda cx
    beq @out
    cmp #7
    bcs @out
    lda cy
    cmp #14
    bcs @out
    asl a
    asl a
    asl a
    asl a
    sta tmp7
    lda cx
    asl a
    ora #CELL
    ora tmp7
    tay
    lda (ptr),y
    CODE_ONLY
    CMP_EMPTY
    clc
    rts
@out:
    sec
    rts

.if LINKS
; ---------------------------------------------------------------- link bits
; Recompute the link bits of player x's field if it changed (COLOR_BITS: ORed into the code byte;
; OTHER_BITS: the other byte), unless a group search ran this frame. Keeps X.
relink:
    lda LINKNEED,x
    beq :+
    lda CHECKED             ; a group search ran this frame: no time left, next frame
    beq :++
:
    rts
:
    lda #0
    sta LINKNEED,x
    cpx #0
    beq :+
    jmp relink2
:
    RELINK_FIELD FIELD1
    ldx #0
    rts
relink2:
    RELINK_FIELD FIELD2
    ldx #1
    rts
.endif
