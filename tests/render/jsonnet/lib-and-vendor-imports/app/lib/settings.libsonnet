{ name: 'shop', image: 'shop:1.4.2' }
