; menu.s -- title screen, mode select, game over

; leave play: both players idle, no controllable piece
players_idle:
    ldx #1
@l:
    lda #PS_IDLE
    sta PST,x
    lda #$FF
    sta SDELAY,x
    lda #0
    sta SPAWNED,x
    sta CHAIN,x
    dex
    bpl @l
    lda #0
    sta SPAWNANY
    sta PAUSED
    jmp hide_sprites

enter_title:
    jsr screen_off
    jsr players_idle
    lda #0
    sta GSTATE
    jsr clear_screen
    lda #<title_script
    sta ptr2
    lda #>title_script
    sta ptr2+1
    jsr draw_script
    ; a row of puyos: appearances 1..7 at metatile row 6, cols 4..10
    lda #1
    sta count
@p:
    lda count
    clc
    adc #3
    sta tx
    lda #6
    sta ty
    ldy count
    lda app_pal,y
    jsr attr_set
    lda tx
    asl a
    clc
    adc #$80                ; $2180 = tile row 12
    sta fill_lo
    lda #$21
    sta fill_hi
    lda count
    jsr cell_direct
    inc count
    lda count
    cmp #8
    bne @p
    jsr flush_attr
    jmp screen_on

title_state:
    lda PADNEW
    and #BTN_START
    beq @done
    jsr enter_menu
@done:
    jmp main_end

enter_menu:
    jsr screen_off
    lda #1
    sta GSTATE
    lda #0
    sta CURSOR
    jsr clear_screen
    lda #<menu_script
    sta ptr2
    lda #>menu_script
    sta ptr2+1
    jsr draw_script
    jsr flush_attr
    jmp screen_on

menu_state:
    lda PADNEW
    sta tmp12
    and #BTN_START
    beq @nostart
    jsr start_game
    jmp main_end
@nostart:
    lda tmp12
    and #BTN_DOWN
    beq @nodown
    inc CURSOR
    lda CURSOR
    cmp #3
    bcc @nodown
    lda #0
    sta CURSOR
@nodown:
    lda tmp12
    and #BTN_UP
    beq @noup
    dec CURSOR
    bpl @noup
    lda #2
    sta CURSOR
@noup:
    lda tmp12
    and #BTN_RIGHT
    beq @noright
    lda #1
    jsr menu_change
@noright:
    lda tmp12
    and #BTN_LEFT
    beq @noleft
    lda #$FF
    jsr menu_change
@noleft:
    jsr menu_draw
    jmp main_end

; A = +1 / -1: change the option under the cursor (wrapping)
menu_change:
    sta tmp0
    ldx CURSOR
    bne @notmode
    lda MODESEL
    eor #2
    sta MODESEL
    rts
@notmode:
    dex
    bne @colors
    lda ITEMOPT
    clc
    adc tmp0
    bpl :+
    lda #2
:
    cmp #3
    bcc :+
    lda #0
:
    sta ITEMOPT
    rts
@colors:
    lda NCOLORS
    clc
    adc tmp0
    cmp #3
    bcs :+
    lda #6
:
    cmp #7
    bcc :+
    lda #3
:
    sta NCOLORS
    rts

; queue the option values and the cursor
menu_draw:
    ; mode
    lda #$21
    sta fill_hi
    lda #$0F
    sta fill_lo
    lda MODESEL
    beq :+
    lda #<txt_2p
    ldx #>txt_2p
    bne :++
:
    lda #<txt_1p
    ldx #>txt_1p
:
    sta ptr2
    stx ptr2+1
    lda #10
    jsr buf_str
    ; item
    lda #$4F
    sta fill_lo
    lda ITEMOPT
    asl a
    tax
    lda item_txt,x
    sta ptr2
    lda item_txt+1,x
    sta ptr2+1
    lda #10
    jsr buf_str
    ; colours
    lda #$8F
    sta fill_lo
    lda #1
    jsr buf_run
    lda NCOLORS
    ora #$30
    jsr buf_byte
    ; cursor column: rows 8, 10, 12 at col 4
    ldx #0
@c:
    lda cursor_lo,x
    sta fill_lo
    lda #1
    jsr buf_run
    lda #' '
    cpx CURSOR
    bne :+
    lda #'>'
:
    jsr buf_byte
    inx
    cpx #3
    bne @c
    rts

cursor_lo:
    .byte $04, $44, $84
item_txt:
    .word txt_off, txt_big, txt_carb
txt_1p:   .byte "1P ENDLESS"
txt_2p:   .byte "2P        "
txt_off:  .byte "OFF       "
txt_big:  .byte "BIG PUYO  "
txt_carb: .byte "CARBUNCLE "

over_state:
    jsr render_play
    lda PADNEW
    and #BTN_START
    beq @done
    jsr enter_title
@done:
    jmp main_end

title_script:
    .byte $20, $C9, "PUYO PUYO LAB", $FF
    .byte $21, $26, "OPEN TEST CARTRIDGE", $FF
    .byte $22, $4A, "PRESS START", $FF
    .byte $22, $C7, "FOR PUYOBOT TESTS", $FF
    .byte $00

menu_script:
    .byte $20, $89, "PUYO PUYO LAB", $FF
    .byte $21, $06, "MODE", $FF
    .byte $21, $46, "ITEM", $FF
    .byte $21, $86, "COLORS", $FF
    .byte $22, $24, "UP DOWN    SELECT LINE", $FF
    .byte $22, $64, "LEFT RIGHT CHANGE", $FF
    .byte $22, $A4, "START      PLAY", $FF
    .byte $00
